import { ownerAudit } from "../audit/context";
import type { AuditContext } from "../audit/events";
import { recordPartnerCreated } from "../audit/partners";
import type { SignedInUser } from "../auth/sessions";
import { db } from "../db/client";
import { lockUserRow } from "../db/queries/locks";
import { getEnv } from "../env";
import { readJsonBody } from "../http/body-limits";
import { answeringOutages, temporarilyUnavailable } from "../http/outage";
import { errorJson, privateJson } from "../http/respond";
import { claimPartnerName, NAME_KEYS_VERSION } from "./name-keys";
import { authenticateDashboardUser } from "./owner-session";
import type { FieldViolation } from "./violations";
import { fieldViolations, type BodyDescription } from "./field-violations";
import { SignUpBody } from "./schemas";

/**
 * Self-service sign-up (docs/partner-signup.md): `POST /api/partners` `{name}`
 * makes a signed-in person who owns no partner the owner of a new one, when
 * the operator allows it (PARTNER_SELF_SIGNUP). A person gets one partner
 * this way: the user's row is locked while the partners they own are
 * counted, so a double click or two tabs create one partner, and the second
 * request answers the partner the first one made. Further partners and
 * owners are the operator's (`npm run admin -- partner …`).
 *
 * The name is stored normalized (lib/partners/names.ts) and refused when it
 * looks like a name another partner is shown by, its name or its branding
 * display name (lib/partners/name-keys.ts), so a newcomer cannot pass for a
 * known partner.
 */

export type SignUpResult =
  { partner: { id: string; name: string }; created: boolean } | { taken: true };

/** Rolls the sign-up's transaction back: the name's key is another partner's. */
class NameTaken extends Error {}

export async function signUpPartner(
  user: Pick<SignedInUser, "userId" | "email">,
  name: string,
  audit: AuditContext,
): Promise<SignUpResult> {
  try {
    return await db().$transaction(async (tx) => {
      await lockUserRow(tx, user.userId);
      const owned = await tx.partner.findFirst({
        where: { owners: { some: { userId: user.userId } } },
        orderBy: [{ createdAt: "asc" }, { id: "asc" }],
        select: { id: true, name: true },
      });
      if (owned) return { partner: owned, created: false };
      const partner = await tx.partner.create({
        data: {
          name,
          nameKeysVersion: NAME_KEYS_VERSION,
          owners: { create: { userId: user.userId } },
        },
        select: { id: true, name: true },
      });
      // The key's primary key decides between two people signing up names
      // that look the same at once: the second waits for the first's commit.
      if (!(await claimPartnerName(tx, partner))) throw new NameTaken();
      await recordPartnerCreated(tx, { ...partner, ownerEmail: user.email }, audit);
      return { partner, created: true };
    });
  } catch (error) {
    if (error instanceof NameTaken) return { taken: true };
    throw error;
  }
}

const invalid = (violation: FieldViolation) =>
  privateJson(
    { error: "invalid_request", error_description: violation.message, violations: [violation] },
    400,
  );

const NOT_AN_OBJECT = "the body must be a JSON object";

const SIGNUP_BODY: BodyDescription = {
  noun: "sign-up",
  fields: ["name"],
  missingIsRequired: false,
};

/** The request's partner name, or the violation to answer. */
async function readName(request: Request): Promise<string | FieldViolation> {
  const read = await readJsonBody(request);
  if (!read.ok) return { field: "body", code: "invalid_body", message: NOT_AN_OBJECT };
  const parsed = SignUpBody.safeParse(read.value, { reportInput: true });
  if (parsed.success) return parsed.data.name;
  const [violation] = fieldViolations(parsed.error.issues, SIGNUP_BODY);
  return violation ?? { field: "body", code: "invalid_body", message: NOT_AN_OBJECT };
}

/**
 * POST /api/partners: 201 with the new partner, 200 with the one this person
 * already owns, 409 name_taken for a name that looks like one another partner is shown by.
 */
export const handlePartnerSignUp = answeringOutages(async (request: Request) => {
  const user = await authenticateDashboardUser(request, { mutation: true });
  if (user instanceof Response) return user;
  if (!getEnv().partnerSelfSignup) {
    return errorJson(
      403,
      "signup_closed",
      "the operator adds partners and their owners: npm run admin -- partner add-owner --partner <partner-id> --email <email>",
    );
  }
  const name = await readName(request);
  if (typeof name !== "string") return invalid(name);
  const result = await signUpPartner(user, name, ownerAudit(request, { user }));
  if ("taken" in result) {
    const message =
      "name is already used by another partner, or looks the same as one: choose another name";
    return privateJson(
      {
        error: "name_taken",
        error_description: message,
        violations: [{ field: "name", code: "taken", message }],
      },
      409,
    );
  }
  return privateJson(result, result.created ? 201 : 200);
}, temporarilyUnavailable);
