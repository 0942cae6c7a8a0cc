import { mailAccountChanged } from "../mail/account-changed";
import { countKeySetUp } from "../analytics/counters";
import { isFreshSignIn } from "../auth/sessions";
import { requestAudit } from "../audit/context";
import { replaceUserKey } from "../banking/start-over";
import { db } from "../db/client";
import { jsonResponse } from "../http/respond";
import { flowFreshSignInRequired } from "./continue";
import { guardFlowPost } from "./guard";
import { keyPost, validPublicKey } from "./key-setup";
import { resolveNextStep } from "./steps";

/**
 * POST /setup/start-over `{csrf, replaces, publicKey}` (docs/key-model.md):
 * a user who lost their key (or its passphrase) replaces it with a key the
 * browser just made and backed up. `replaces` is the key the screen showed
 * as registered, so a stale screen or a second click cannot replace a key
 * registered in the meantime. Everything sealed to the old key is deleted
 * and the API keys reading it are revoked (lib/banking/start-over.ts); the
 * flow goes on at the bank step, and the new connections are sealed anew.
 */
const START_OVER_POST = keyPost("start-over");

export async function handleStartOver(request: Request): Promise<Response> {
  const post = await guardFlowPost(request, START_OVER_POST);
  if (post instanceof Response) return post;
  const { flow, user } = post;
  // Irreversible: a stale or copied session signs in again first (docs/sessions.md).
  if (!isFreshSignIn(user)) return flowFreshSignInRequired(user.email, "setup");
  const { fields } = post.body;
  const publicKey = validPublicKey(fields.publicKey);
  const replaces = validPublicKey(fields.replaces);
  if (!publicKey || !replaces) return post.refuse("invalid_key");
  if (publicKey === replaces) return post.refuse("same_key");

  const result = await replaceUserKey({
    userId: user.userId,
    replaces,
    publicKey,
    // `backup: false`: the new key is held by a passkey, with no passphrase backup saved.
    backupSaved: fields.backup !== false,
    audit: requestAudit(request, { kind: "user", id: user.userId }),
  });
  // A new key made in this flow is a key set up, like a first one.
  if (result.replaced) {
    await countKeySetUp(flow.id);
    await mailAccountChanged({ ...user, change: "keyReplaced" });
  }
  if (!result.replaced) {
    // Already done by this very request's twin (a retry after a lost answer) is not a conflict.
    const stored = await db().user.findUniqueOrThrow({ where: { id: user.userId } });
    if (stored.publicKey !== publicKey) return post.refuse("key_changed");
  }
  const next = await resolveNextStep(flow, { id: user.userId, email: user.email, publicKey });
  return jsonResponse({ next: next.path }, { headers: { "Cache-Control": "no-store" } });
}
