import { z } from "zod";
import { db } from "../db/client";
import { validPublicKey } from "../flow/key-setup";
import { privateJson } from "../http/respond";
import { readAccountNote, refuse } from "./session";

/**
 * POST /account/key/backup-saved `{csrf, publicKey}` (docs/account.md): the
 * person says they saved a passphrase backup file of their key. The service
 * cannot check a file it never sees; it records the moment (`keyBackupAt`),
 * which lets the person remove the last passkey holding their key
 * (docs/key-model.md#why-the-last-holder-cannot-be-removed). `publicKey` is
 * the key of the file: a page left open while the key was replaced elsewhere
 * records nothing (409 `key_changed`).
 *
 * Recording the person's word changes nothing that cannot be changed back,
 * so an older session may send it (no fresh sign-in); the other guards are
 * those of every My access action.
 */
export async function handleBackupSaved(request: Request): Promise<Response> {
  const read = await readAccountNote(
    request,
    "backup-saved",
    z.object({ csrf: z.string(), publicKey: z.string().max(200) }),
  );
  if (read instanceof Response) return read;
  const publicKey = validPublicKey(read.body.publicKey);
  if (!publicKey) return refuse(400, "invalid_request", "publicKey is not a public key");
  const keyBackupAt = new Date();
  const { count } = await db().user.updateMany({
    where: { id: read.user.userId, publicKey },
    data: { keyBackupAt },
  });
  if (count === 0) return refuse(409, "key_changed", "this is not the registered key");
  return privateJson({ ok: true, keyBackupAt: keyBackupAt.toISOString() });
}
