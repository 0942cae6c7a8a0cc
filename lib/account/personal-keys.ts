import { z } from "zod";
import { requestAudit } from "../audit/context";
import { recordAuditEvent } from "../audit/record";
import { db } from "../db/client";
import { isUuid } from "../db/uuid";
import { clientIpOf } from "../http/client-ip";
import { privateJson } from "../http/respond";
import { issuePersonalKey, PERSONAL_KEYS_CLIENT } from "../oauth/personal-keys";
import { readAccountPost, refuse } from "./session";
import { lockUserRow } from "../db/queries/locks";

/**
 * A person's own keys on My access (docs/own-data.md): the command-line
 * client's and those made by hand for their own integrations, each revocable.
 * Both actions are "My access" actions (same Origin, their own CSRF token, a
 * fresh sign-in: making a key hands something over, revoking one cannot be
 * undone) and act only on the person's own personal keys: any other id,
 * another person's key or a partner's, is answered 404 like one that does not
 * exist.
 */

/** How many live personal keys a person may hold: enough for every tool, not unbounded. */
export const MAX_PERSONAL_KEYS = 20;
export const MAX_KEY_NAME_LENGTH = 60;

/** A name as people type it: trimmed, one space between words, no control or format characters. */
const keyName = z
  .string()
  .transform((value) => value.normalize("NFKC").trim().replace(/\s+/g, " "))
  .pipe(
    z
      .string()
      .min(1)
      .max(MAX_KEY_NAME_LENGTH)
      .refine((value) => !/[\p{Cc}\p{Cf}]/u.test(value)),
  );

/** POST /account/keys `{csrf, name}` → the new key, its value shown this once. */
export async function handleCreatePersonalKey(request: Request): Promise<Response> {
  const read = await readAccountPost(
    request,
    "create-key",
    z.object({ csrf: z.string(), name: keyName }),
  );
  if (read instanceof Response) return read;
  const { userId, publicKey } = read.user;
  if (!publicKey) return refuse(409, "key_required", "set up your key before making a key");
  const now = new Date();
  const issued = await db().$transaction(async (tx) => {
    // One at a time per person, so two tabs cannot both pass the count.
    await lockUserRow(tx, userId);
    const live = await tx.apiKey.count({
      where: {
        tenant: { userId },
        revokedAt: null,
        expiresAt: { gt: now },
        client: { partnerId: null },
      },
    });
    if (live >= MAX_PERSONAL_KEYS) return null;
    return issuePersonalKey(tx, {
      userId,
      client: PERSONAL_KEYS_CLIENT,
      name: read.body.name,
      clientIp: clientIpOf(request),
      now,
    });
  });
  if (!issued) {
    return refuse(409, "too_many_keys", `revoke a key first: at most ${MAX_PERSONAL_KEYS}`);
  }
  return privateJson({
    ok: true,
    key: {
      id: issued.id,
      name: read.body.name,
      apiKey: issued.apiKey,
      prefix: issued.prefix,
      createdAt: now.toISOString(),
      expiresAt: issued.expiresAt.toISOString(),
    },
  });
}

/** POST /account/keys/revoke `{csrf, id}`: ends one of the person's own personal keys at once. */
export async function handleRevokePersonalKey(request: Request): Promise<Response> {
  const read = await readAccountPost(
    request,
    "revoke-key",
    z.object({ csrf: z.string(), id: z.string().refine(isUuid) }),
  );
  if (read instanceof Response) return read;
  const { userId } = read.user;
  const now = new Date();
  const revoked = await db().$transaction(async (tx) => {
    const rows = await tx.apiKey.updateManyAndReturn({
      where: {
        id: read.body.id,
        tenant: { userId },
        client: { partnerId: null },
        revokedAt: null,
      },
      data: { revokedAt: now },
      select: { prefix: true, clientId: true },
    });
    for (const row of rows) {
      await recordAuditEvent(tx, {
        type: "api_key.revoked",
        context: requestAudit(request, { kind: "user", id: userId }),
        partnerId: null,
        clientId: row.clientId,
        userId,
        subject: row.prefix,
        details: { reason: "user_revoked_own_key" },
        at: now,
      });
    }
    return rows.length;
  });
  if (revoked === 0) return refuse(404, "not_found", "no such key of yours");
  return privateJson({ ok: true });
}
