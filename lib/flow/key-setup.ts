import { countKeySetUp } from "../analytics/counters";
import { parseRawPublicKey } from "../crypto/envelope";
import { db } from "../db/client";
import { jsonResponse } from "../http/respond";
import { dropOtherWrappedKeys, isHeldByPasskey } from "../passkeys/store";
import { guardFlowPost, type FlowPostRule } from "./guard";
import { resolveNextStep } from "./steps";

/**
 * POST /setup/key (docs/key-model.md): the browser registers the public half
 * of the key it generated (once its backup is saved) or imported. The private
 * key never arrives here. A user's key is fixed once registered: importing a
 * backup must match it, and registering the same key again (a browser that
 * resumes a setup whose answer it never got) only answers where to go next.
 * Replacing the key is starting over (lib/flow/start-over.ts).
 *
 * On the passphrase path the post means the key's backup was saved and
 * confirmed (the setup screen sends it only then, and an imported key comes
 * from its backup), which is recorded as `User.keyBackupAt`. A key that a
 * passkey of the person already holds came by the passkey path, where no
 * backup file is made, and `backup: false` says so outright: then nothing is
 * recorded. Passkeys made earlier in the setup keep the key they wrap only
 * if it is this one.
 */

/**
 * The key posts (this one and starting over): the setup screen's script, from
 * the flow's own signed-in browser, with the flow's token for the action.
 * Registering works at any step once signed in: a key imported on a new
 * device, or a setup resumed after its answer was lost, only says where to go.
 */
export const keyPost = (token: "key-setup" | "start-over") =>
  ({
    body: "json",
    errors: "json",
    flow: "required",
    user: "flow",
    token,
  }) as const satisfies FlowPostRule;

const KEY_SETUP_POST = keyPost("key-setup");

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
  const post = await guardFlowPost(request, KEY_SETUP_POST);
  if (post instanceof Response) return post;
  const { flow, user } = post;
  const publicKey = validPublicKey(post.body.fields.publicKey);
  if (!publicKey) return post.refuse("invalid_key");

  if (user.publicKey && user.publicKey !== publicKey) return post.refuse("key_mismatch");
  const now = new Date();
  const backupSaved =
    post.body.fields.backup !== false && !(await isHeldByPasskey(db(), user.userId, publicKey));
  if (!user.publicKey) {
    // Conditional: two tabs registering at once cannot overwrite each other.
    const registered = await db().$transaction(async (tx) => {
      const updated = await tx.user.updateMany({
        where: { id: user.userId, publicKey: null },
        data: { publicKey, publicKeyAt: now, ...(backupSaved ? { keyBackupAt: now } : {}) },
      });
      if (updated.count === 1) await dropOtherWrappedKeys(tx, user.userId, publicKey);
      return updated.count;
    });
    if (registered === 1) await countKeySetUp(flow.id);
  } else if (backupSaved) {
    // The same key again: imported from its backup, or a setup resumed after its answer was lost.
    await db().user.updateMany({
      where: { id: user.userId, publicKey },
      data: { keyBackupAt: now },
    });
  }
  const stored = await db().user.findUniqueOrThrow({ where: { id: user.userId } });
  if (stored.publicKey !== publicKey) return post.refuse("key_mismatch");
  const next = await resolveNextStep(flow, {
    id: stored.id,
    email: stored.email,
    publicKey: stored.publicKey,
  });
  return jsonResponse({ next: next.path }, { headers: { "Cache-Control": "no-store" } });
}
