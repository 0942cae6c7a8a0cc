import { findSignedInUser, type SignedInUser } from "../auth/sessions";
import { timingSafeEqualString } from "../crypto/constant-time";
import { keyedHash } from "../crypto/keyed-hash";
import { db } from "../db/client";
import { isUuid } from "../db/uuid";
import { isSameOrigin } from "../http/origin";
import { errorJson } from "../http/respond";
import { refuseOutsideScope } from "../oauth/bearer";
import { readApiKeyCredential } from "../keys/api-keys";

/**
 * The partner owner's interactive session (docs/protocol.md#partner-endpoints): the same browser
 * sign-in as the flow, an owner of the partner, and for every mutation the
 * session's CSRF token in `X-CSRF-Token` from this service's own origin.
 * API keys are refused with 403 like on every path outside their five
 * operations (/docs/data).
 */

export const CSRF_HEADER = "x-csrf-token";

/** The session's CSRF token: bound to the session, unforgeable without the server secret. */
export const sessionCsrfToken = (user: Pick<SignedInUser, "sessionId">) =>
  keyedHash("session-csrf", user.sessionId);

export interface OwnedPartner {
  user: SignedInUser;
  partnerId: string;
}

const refuse = errorJson;

/** The partners a user owns, oldest first. */
export function ownedPartners(userId: string) {
  return db().partner.findMany({
    where: { owners: { some: { userId } } },
    orderBy: [{ createdAt: "asc" }, { id: "asc" }],
    select: { id: true, name: true, displayName: true, status: true },
  });
}

/**
 * The person signed in to the dashboard, whether or not they own a partner:
 * API keys are refused, and a mutation needs the session's CSRF token from
 * this service's own origin.
 */
export async function authenticateDashboardUser(
  request: Request,
  options: { mutation: boolean },
): Promise<SignedInUser | Response> {
  if (readApiKeyCredential(request).kind !== "none") return refuseOutsideScope(request);
  const user = await findSignedInUser(request);
  if (!user) return refuse(401, "login_required", "sign in as the partner's owner");
  if (options.mutation) {
    const token = request.headers.get(CSRF_HEADER) ?? "";
    if (!isSameOrigin(request) || !timingSafeEqualString(token, sessionCsrfToken(user))) {
      return refuse(403, "csrf", "the request did not come from this service's dashboard");
    }
  }
  return user;
}

/**
 * The owner and the partner the request acts for (`?partner=<id>`, or the
 * only one the user owns), or the refusal to answer with.
 */
export async function authenticateOwner(
  request: Request,
  options: { mutation: boolean },
): Promise<OwnedPartner | Response> {
  const user = await authenticateDashboardUser(request, options);
  if (user instanceof Response) return user;
  const owned = await ownedPartners(user.userId);
  const asked = new URL(request.url).searchParams.get("partner");
  if (asked !== null) {
    const partner = isUuid(asked) ? owned.find((candidate) => candidate.id === asked) : undefined;
    if (!partner) return refuse(403, "not_owner", "you are not an owner of this partner");
    return { user, partnerId: partner.id };
  }
  const [only, ...others] = owned;
  if (!only) return refuse(403, "not_owner", "you are not an owner of any partner");
  if (others.length > 0) {
    return refuse(
      400,
      "invalid_request",
      "you own several partners: choose one with ?partner=<id>",
    );
  }
  return { user, partnerId: only.id };
}
