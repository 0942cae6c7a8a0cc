import { z } from "zod";
import { locales } from "../i18n/locales";
import { addViolation } from "./field-violations";
import { checkName, MAX_NAME_LENGTH, normalizeNameText } from "./names";
import { parseRedirectUris, type RedirectUriProblem } from "./redirect-uris";

/**
 * The partner and dashboard endpoints' JSON bodies (docs/protocol.md#partner-endpoints,
 * /docs/recipient-keys): the handlers' answers are typed by these, and /openapi.json is
 * generated from them.
 */

const nullableText = z.string().nullable();

export const BrandingRecordWire = z
  .object({
    displayName: nullableText.describe(
      "At most 80 characters, normalized; refused when it looks like another partner's name",
    ),
    logoUrl: nullableText.describe("https URL to fetch; answered as the path it is served from"),
    accentColor: nullableText.describe("#rrggbb"),
    supportUrl: nullableText.describe("https URL under the pinned registered domain, if any"),
    termsUrl: nullableText,
    privacyUrl: nullableText,
    purpose: nullableText.describe("At most 280 characters, one line"),
    defaultLanguage: z.enum(locales).nullable(),
  })
  .meta({ id: "BrandingRecord" });

export const PartnerWire = z
  .object({
    id: z.string(),
    name: z.string(),
    status: z.string(),
    registeredDomain: nullableText,
    branding: BrandingRecordWire,
    recipientKey: z.object({ fingerprint: nullableText, installedAt: nullableText }).nullable(),
  })
  .meta({ id: "Partner" });

export const ClientBrandingWire = z
  .object({
    clientId: z.string(),
    name: z.string(),
    logoUrl: nullableText,
    accentColor: nullableText,
    accentTextColor: nullableText,
    purpose: nullableText,
    supportUrl: nullableText,
    termsUrl: nullableText,
    privacyUrl: nullableText,
    defaultLanguage: nullableText,
  })
  .meta({ id: "ClientBranding" });

export const ClientWire = z
  .object({
    clientId: z.string(),
    name: z.string(),
    redirectUris: z.array(z.string()),
    createdAt: z.string(),
    previousSecretExpiresAt: nullableText,
  })
  .meta({ id: "Client" });

export const NewClientWire = z
  .object({
    clientId: z.string(),
    clientSecret: z.string().describe("Shown once"),
    name: z.string(),
    redirectUris: z.array(z.string()),
  })
  .meta({ id: "NewClient" });

export const RotatedSecretWire = z
  .object({ clientSecret: z.string(), previousSecretExpiresAt: z.string() })
  .meta({ id: "RotatedSecret" });

/** Client names on the dashboard: one line, like the branding display name. */
export const MAX_CLIENT_NAME = 80;

/** Characters as a person counts them (code points, not UTF-16 units). */
const lengthOf = (text: string) => [...text].length;

/** A client's name: normalized like a partner's name (lib/partners/names.ts), one line, at most MAX_CLIENT_NAME. */
const clientName = z.string({ error: "name must be a string" }).transform((raw, ctx) => {
  // NFKC, one space between words, no control or invisible characters.
  const normalized = normalizeNameText(raw);
  const name = normalized.ok ? normalized.text : raw.trim();
  if (name === "") addViolation(ctx, "required", "name must not be empty");
  else if (lengthOf(name) > MAX_CLIENT_NAME) {
    addViolation(ctx, "too_long", `name must be at most ${MAX_CLIENT_NAME} characters`);
  } else if (!normalized.ok) addViolation(ctx, normalized.code, `name ${normalized.problem}`);
  else return name;
  return z.NEVER;
});

const NOT_A_LIST = "redirectUris must be an array of strings";

/**
 * The redirect URIs (docs/protocol.md#redirect-uris), each problem with the
 * rule's own sentence (lib/partners/redirect-uris.ts), on the list or on the
 * offending entry (`redirectUris[i]`).
 */
const clientRedirectUris = z
  .array(z.unknown(), { error: NOT_A_LIST })
  .transform((raw, ctx) => {
    if (!raw.every((uri) => typeof uri === "string")) {
      addViolation(ctx, "invalid_type", NOT_A_LIST);
      return z.NEVER;
    }
    const list = raw as string[];
    const result = parseRedirectUris(list);
    if (result.success) return result.data;
    const listRules: RedirectUriProblem["rule"][] = ["required", "too_many", "duplicate"];
    for (const problem of result.problems) {
      const entry = problem.uri === null ? -1 : list.indexOf(problem.uri);
      const onList = entry < 0 || listRules.includes(problem.rule);
      addViolation(ctx, problem.rule, problem.message, onList ? [] : [entry]);
    }
    return z.NEVER;
  })
  // Entries are checked as strings above, one violation for the whole list.
  .meta({ override: { type: "array", items: { type: "string" } } });

const notAnObject = {
  error: (issue: { code: string }) =>
    issue.code === "invalid_type" ? "the body must be a JSON object" : undefined,
};

/** A new client's metadata: both fields required, no other key. */
export const NewClientMetadataBody = z
  .strictObject({ name: clientName, redirectUris: clientRedirectUris }, notAnObject)
  .meta({ id: "NewClientMetadata" });

/** A client's changed metadata: either field, no other key. */
export const ClientMetadataBody = z
  .strictObject(
    { name: clientName.optional(), redirectUris: clientRedirectUris.optional() },
    notAnObject,
  )
  .meta({ id: "ClientMetadata" });

export const RecipientKeyChallengeWire = z
  .object({
    fingerprint: z.string(),
    envelope: z.string().describe("Opens with the key's private half to {nonce}"),
    issuedAt: z.string(),
    expiresAt: z.string(),
  })
  .meta({ id: "RecipientKeyChallenge" });

export const RecipientKeyInstalledWire = z
  .object({ fingerprint: z.string(), installedAt: z.string() })
  .meta({ id: "RecipientKeyInstalled" });

/**
 * The sign-up body: `{name}`, normalized and held to the partner name rules
 * (lib/partners/names.ts). Other keys are ignored.
 */
export const SignUpBody = z
  .object(
    {
      name: z
        .string({ error: "name must be a string" })
        .transform((raw, ctx) => {
          const checked = checkName(raw);
          if (checked.ok) return checked.name;
          addViolation(ctx, checked.code, `name ${checked.problem}`);
          return z.NEVER;
        })
        .describe(
          `At most ${MAX_NAME_LENGTH} characters, normalized; refused when it looks like another partner's name`,
        ),
    },
    {
      error: (issue) =>
        issue.code === "invalid_type" ? "the body must be a JSON object" : undefined,
    },
  )
  .meta({ id: "SignUp" });
