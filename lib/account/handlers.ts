import { z } from "zod";
import { requestAudit } from "../audit/context";
import { replaceUserKey } from "../banking/start-over";
import { isUuid } from "../db/uuid";
import { validPublicKey } from "../flow/key-setup";
import { privateJson } from "../http/respond";
import { endBrowserSession } from "../auth/sessions";
import { deleteEverything } from "./delete-everything";
import { endPartnerAccess } from "./end-access";
import { mailAccountChanged } from "../mail/account-changed";
import { removeConnection } from "./remove-bank";
import { readAccountPost, refuse } from "./session";

/**
 * The "My access" actions (docs/account.md): JSON POSTs guarded by
 * `readAccountPost`, each acting only on the signed-in person's own rows.
 * An id that is not theirs is answered exactly like an id that does not
 * exist (404 `not_found`), so nothing is learnt about other people's rows.
 */

const uuid = z.string().refine(isUuid);
const ok = (body: object = {}) => privateJson({ ok: true, ...body });
const audit = (request: Request, userId: string) =>
  requestAudit(request, { kind: "user", id: userId });

/** POST /account/access/end `{csrf, partnerId}`. */
export async function handleEndAccess(request: Request): Promise<Response> {
  const read = await readAccountPost(
    request,
    "end-access",
    z.object({ csrf: z.string(), partnerId: uuid }),
  );
  if (read instanceof Response) return read;
  const { revoked } = await endPartnerAccess({
    userId: read.user.userId,
    partnerId: read.body.partnerId,
    audit: audit(request, read.user.userId),
  });
  if (revoked === 0) return refuse(404, "not_found", "no access of this partner to end");
  return ok({ revoked });
}

/** POST /account/banks/remove `{csrf, connectionId, upstreamSessionId?}`. */
export async function handleRemoveBank(request: Request): Promise<Response> {
  const read = await readAccountPost(
    request,
    "remove-bank",
    z.object({
      csrf: z.string(),
      connectionId: uuid,
      upstreamSessionId: z.string().min(1).max(4096).nullish(),
    }),
  );
  if (read instanceof Response) return read;
  const result = await removeConnection({
    userId: read.user.userId,
    connectionId: read.body.connectionId,
    upstreamSessionId: read.body.upstreamSessionId ?? null,
  });
  switch (result.kind) {
    case "not_found":
      return refuse(404, "not_found", "no such bank connection");
    case "wrong_session":
      return refuse(400, "invalid_request", "the session id is not this connection's");
    case "removed":
      return ok({ upstreamClosed: result.upstreamClosed });
  }
}

/**
 * POST /account/key/start-over `{csrf, replaces, publicKey, backup?}`: the lost-key
 * path of the flow (lib/banking/start-over.ts) from the page. `replaces` is
 * the key the page showed, so a stale page cannot replace a newer key.
 */
export async function handleAccountStartOver(request: Request): Promise<Response> {
  const read = await readAccountPost(
    request,
    "start-over",
    z.object({
      csrf: z.string(),
      replaces: z.string(),
      publicKey: z.string(),
      // false: no passphrase backup of the new key was saved (it is held by a passkey).
      backup: z.boolean().optional(),
    }),
  );
  if (read instanceof Response) return read;
  const publicKey = validPublicKey(read.body.publicKey);
  const replaces = validPublicKey(read.body.replaces);
  if (!publicKey || !replaces || publicKey === replaces) {
    return refuse(400, "invalid_request", "publicKey and replaces must be two different keys");
  }
  const result = await replaceUserKey({
    userId: read.user.userId,
    replaces,
    publicKey,
    backupSaved: read.body.backup !== false,
    audit: audit(request, read.user.userId),
  });
  if (!result.replaced) return refuse(409, "key_changed", "the key was replaced meanwhile");
  await mailAccountChanged({ ...read.user, change: "keyReplaced" });
  return ok({ next: "/account" });
}

/**
 * POST /account/delete `{csrf, confirm}`: `confirm` is the sign-in address,
 * typed by the person. The session cookie is cleared with the rest.
 */
export async function handleDeleteEverything(request: Request): Promise<Response> {
  const read = await readAccountPost(
    request,
    "delete",
    z.object({ csrf: z.string(), confirm: z.string().max(320) }),
  );
  if (read instanceof Response) return read;
  if (read.body.confirm.trim().toLowerCase() !== read.user.email) {
    return refuse(400, "confirmation_mismatch", "type your sign-in address to confirm");
  }
  const result = await deleteEverything({
    userId: read.user.userId,
    audit: audit(request, read.user.userId),
  });
  switch (result.kind) {
    case "owns_partner":
      return refuse(409, "owns_partner", "a partner's owner cannot delete their account here");
    case "not_found":
      return refuse(404, "not_found", "nothing to delete");
    case "deleted": {
      await mailAccountChanged({ ...read.user, change: "deleted" });
      const cleared = await endBrowserSession(request);
      const response = ok({ apiKeysRevoked: result.apiKeysRevoked });
      response.headers.set("Set-Cookie", cleared);
      return response;
    }
  }
}
