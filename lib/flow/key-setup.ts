import { countKeySetUp } from "../analytics/counters";
import { findSignedInUser, type SignedInUser } from "../auth/sessions";
import { parseRawPublicKey } from "../crypto/envelope";
import { db } from "../db/client";
import { readBodyTextOrRefuse } from "../http/body-limits";
import { jsonResponse } from "../http/respond";
import { isValidCsrfToken, type FlowAction } from "./csrf";
import { isSameOrigin } from "../http/origin";
import { findBrowserFlow } from "./flows";
import { resolveNextStep } from "./steps";

/**
 * POST /setup/key (docs/key-model.md): the browser registers the public half
 * of the key it generated (once its backup is saved) or imported. The private
 * key never arrives here. A user's key is fixed once registered: importing a
 * backup must match it, and registering the same key again (a browser that
 * resumes a setup whose answer it never got) only answers where to go next.
 * Replacing the key is starting over (lib/flow/start-over.ts).
 */

export const refuse = (status: number, error: string) =>
  jsonResponse({ error }, { status, headers: { "Cache-Control": "no-store" } });

export type FlowFromBrowser = NonNullable<Awaited<ReturnType<typeof findBrowserFlow>>>;

/**
 * What every key request of the flow checks first: this service's Origin,
 * the browser's flow and its signed-in user, a JSON object body and the
 * flow's CSRF token for `action`. Answers the refusal, or the parts.
 */
export async function readKeyRequest(
  request: Request,
  action: FlowAction,
): Promise<
  Response | { flow: FlowFromBrowser; user: SignedInUser; body: Record<string, unknown> }
> {
  if (!isSameOrigin(request)) return refuse(403, "cross_origin");
  const [flow, user] = await Promise.all([findBrowserFlow(request), findSignedInUser(request)]);
  if (!flow || !user || flow.userId !== user.userId) return refuse(401, "no_flow");
  const text = await readBodyTextOrRefuse(request);
  if (text instanceof Response) return text;
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return refuse(400, "invalid_body");
  }
  if (typeof body !== "object" || body === null || Array.isArray(body)) {
    return refuse(400, "invalid_body");
  }
  const fields = body as Record<string, unknown>;
  if (!isValidCsrfToken(flow, action, typeof fields.csrf === "string" ? fields.csrf : null)) {
    return refuse(403, "invalid_csrf");
  }
  return { flow, user, body: fields };
}

/** A raw P-256 public point in standard base64, or null. */
export function validPublicKey(value: unknown): string | null {
  if (typeof value !== "string") return null;
  try {
    parseRawPublicKey(value);
    return value;
  } catch {
    return null;
  }
}

export async function handleKeyRegistration(request: Request): Promise<Response> {
  const read = await readKeyRequest(request, "key-setup");
  if (read instanceof Response) return read;
  const { flow, user, body } = read;
  const publicKey = validPublicKey(body.publicKey);
  if (!publicKey) return refuse(400, "invalid_key");

  if (user.publicKey && user.publicKey !== publicKey) return refuse(409, "key_mismatch");
  if (!user.publicKey) {
    // Conditional: two tabs registering at once cannot overwrite each other.
    const registered = await db().user.updateMany({
      where: { id: user.userId, publicKey: null },
      data: { publicKey, publicKeyAt: new Date() },
    });
    if (registered.count === 1) await countKeySetUp(flow.id);
  }
  const stored = await db().user.findUniqueOrThrow({ where: { id: user.userId } });
  if (stored.publicKey !== publicKey) return refuse(409, "key_mismatch");
  const next = await resolveNextStep(flow, {
    id: stored.id,
    email: stored.email,
    publicKey: stored.publicKey,
  });
  return jsonResponse({ next: next.path }, { headers: { "Cache-Control": "no-store" } });
}
