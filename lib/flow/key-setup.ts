import { findSignedInUser } from "../auth/sessions";
import { parseRawPublicKey } from "../crypto/envelope";
import { db } from "../db/client";
import { jsonResponse } from "../http/respond";
import { readBodyText } from "../oauth/params";
import { isSameOrigin, isValidCsrfToken } from "./csrf";
import { findBrowserFlow } from "./flows";
import { resolveNextStep } from "./steps";

/**
 * POST /setup/key (DESIGN.md §6.3): the browser registers the public half of
 * the key it generated (or imported). The private key never arrives here. A
 * user's key is fixed once registered: importing a backup must match it.
 */
export async function handleKeyRegistration(request: Request): Promise<Response> {
  const refuse = (status: number, error: string) => jsonResponse({ error }, { status });
  if (!isSameOrigin(request)) return refuse(403, "cross_origin");
  const [flow, user] = await Promise.all([findBrowserFlow(request), findSignedInUser(request)]);
  if (!flow || !user || flow.userId !== user.userId) return refuse(401, "no_flow");

  let body: { publicKey?: unknown; csrf?: unknown };
  try {
    body = JSON.parse(await readBodyText(request)) as typeof body;
  } catch {
    return refuse(400, "invalid_body");
  }
  if (typeof body !== "object" || body === null || Array.isArray(body)) {
    return refuse(400, "invalid_body");
  }
  if (!isValidCsrfToken(flow, "key-setup", typeof body.csrf === "string" ? body.csrf : null)) {
    return refuse(403, "invalid_csrf");
  }
  if (typeof body.publicKey !== "string") return refuse(400, "invalid_key");
  try {
    parseRawPublicKey(body.publicKey);
  } catch {
    return refuse(400, "invalid_key");
  }

  if (user.publicKey && user.publicKey !== body.publicKey) return refuse(409, "key_mismatch");
  if (!user.publicKey) {
    // Conditional: two tabs registering at once cannot overwrite each other.
    await db().user.updateMany({
      where: { id: user.userId, publicKey: null },
      data: { publicKey: body.publicKey, publicKeyAt: new Date() },
    });
  }
  const stored = await db().user.findUniqueOrThrow({ where: { id: user.userId } });
  if (stored.publicKey !== body.publicKey) return refuse(409, "key_mismatch");
  const next = await resolveNextStep(flow, {
    id: stored.id,
    email: stored.email,
    publicKey: stored.publicKey,
  });
  return jsonResponse({ next: next.path });
}
