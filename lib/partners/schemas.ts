import { z } from "zod";
import { locales } from "../i18n/locales";
import { addViolation } from "./field-violations";
import { checkName, MAX_NAME_LENGTH } from "./names";

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

export const ClientMetadataBody = z
  .object({ name: z.string().optional(), redirectUris: z.array(z.string()).optional() })
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
