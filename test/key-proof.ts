import { findSignedInUser } from "../lib/auth/sessions";
import { openJson } from "../lib/crypto/envelope";
import { keyProofChallenge } from "../lib/flow/consent";
import { ISSUER } from "./oauth-fixtures";

/**
 * What the consent page's script sends as `proof` in user-key mode: the
 * page's challenge for this browser's session, opened with the private key
 * (as app/(flow)/consent/approve-with-key.tsx does in the browser).
 */
export async function keyProofFor(
  flow: { id: string },
  cookies: string,
  privateKeyPkcs8B64: string,
): Promise<string> {
  const user = await findSignedInUser(new Request(ISSUER, { headers: { Cookie: cookies } }));
  if (!user?.publicKey) throw new Error("no signed-in user with a key in these cookies");
  const challenge = keyProofChallenge(flow, { ...user, publicKey: user.publicKey });
  return openJson<{ proof: string }>(privateKeyPkcs8B64, challenge).proof;
}
