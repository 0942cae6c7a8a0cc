import type { FieldViolation, ViolationCode } from "./violations";

/**
 * The dashboard's words for a refused field. The endpoints answer each
 * violation as `{field, code, message}` with an English message for
 * developers; the screens show the code's sentence in the person's language,
 * naming the field by the label on screen. Pure data, shared by the screens
 * and their tests: message keys are under `Dashboard.errors`, labels under
 * `Dashboard` (see `FIELD_LABELS`).
 */

export type DashboardForm = "branding" | "client" | "signup" | "webhook";

/** A message key under `Dashboard.errors` and its values (`field` is filled in by the screen). */
export interface FieldMessage {
  /** The form field the message belongs next to; null: the form as a whole. */
  input: string | null;
  /** The label key (under `Dashboard`) of the field it names. */
  label: string;
  key: string;
  values: Record<string, string | number>;
}

/** Each form's inputs by the API field they send, with their on-screen label key. */
export const FIELD_LABELS: Record<DashboardForm, Record<string, string>> = {
  branding: {
    displayName: "fields.displayName",
    logo: "fields.logo",
    logoUrl: "fields.logoAddress",
    accentColor: "fields.accentColor",
    supportUrl: "fields.supportUrl",
    termsUrl: "fields.termsUrl",
    privacyUrl: "fields.privacyUrl",
    purpose: "fields.purpose",
    defaultLanguage: "fields.defaultLanguage",
  },
  client: { name: "clients.name", redirectUris: "clients.redirectUris" },
  signup: { name: "signup.name" },
  webhook: { url: "webhooks.url", eventTypes: "webhooks.eventTypes" },
};

/** The limits the sentences quote (kept equal to the rules' own by the tests). */
export const LIMITS = {
  displayName: 80,
  purpose: 280,
  url: 2048,
  clientName: 80,
  partnerName: 100,
  redirectUris: 10,
  logoKiB: 512,
} as const;

const REDIRECT_KEYS: Partial<Record<ViolationCode, string>> = {
  required: "redirectRequired",
  too_many: "redirectTooMany",
  duplicate: "redirectDuplicate",
  too_long: "redirectTooLong",
  whitespace: "redirectSpaces",
  backslash: "redirectBackslash",
  not_absolute: "redirectNotAbsolute",
  scheme: "redirectScheme",
  http_not_loopback: "redirectHttp",
  credentials: "redirectCredentials",
  fragment: "redirectFragment",
};

/** A webhook address the service will not send to, and event types. */
const WEBHOOK_KEYS: Partial<Record<ViolationCode, string>> = {
  invalid_url: "webhookAddress",
  not_https: "webhookHttps",
  credentials: "credentials",
  fragment: "fragment",
  port_not_allowed: "webhookPort",
  private_address: "webhookPrivate",
  unreachable: "webhookUnresolved",
  unknown_event_type: "webhookEventType",
};

/** Logo refusals: the file itself, or an address that cannot or could not be used. */
const LOGO_KEYS: Partial<Record<ViolationCode, string>> = {
  unsupported_type: "logoType",
  too_large: "logoTooLarge",
  unreachable: "logoFetch",
  timeout: "logoFetch",
  http_status: "logoFetch",
  too_many_redirects: "logoFetch",
  invalid_url: "logoAddress",
  not_https: "logoAddress",
  credentials: "logoAddress",
  port_not_allowed: "logoAddress",
  private_address: "logoAddress",
};

const FIELD_KEYS: Partial<Record<ViolationCode, string>> = {
  required: "required",
  too_long: "tooLong",
  one_line: "oneLine",
  https_url: "httpsUrl",
  credentials: "credentials",
  fragment: "fragment",
  outside_domain: "outsideDomain",
  colour: "colour",
  language: "language",
  taken: "taken",
  invisible: "invisible",
};

function maxFor(form: DashboardForm, field: string): number {
  if (form === "signup") return LIMITS.partnerName;
  if (form === "client") return field === "name" ? LIMITS.clientName : LIMITS.url;
  if (field === "displayName") return LIMITS.displayName;
  if (field === "purpose") return LIMITS.purpose;
  return LIMITS.url;
}

/**
 * The sentence for one violation of `form`. `submitted` is what the form
 * sent for list fields (the redirect URIs), so an entry's sentence can quote
 * it; `domain` is the partner's pinned registered domain.
 */
export function fieldMessage(
  form: DashboardForm,
  violation: Pick<FieldViolation, "field" | "code">,
  context: { redirectUris?: readonly string[]; domain?: string | null } = {},
): FieldMessage {
  const entry = /^redirectUris\[(\d+)\]$/.exec(violation.field);
  const field = entry ? "redirectUris" : violation.field;
  const labels = FIELD_LABELS[form];
  const label = labels[field];
  if (!label) return { input: null, label: "", key: "invalid", values: {} };
  const values: Record<string, string | number> = {};
  let key: string | undefined;
  if (form === "client" && field === "redirectUris") {
    key = REDIRECT_KEYS[violation.code];
    values.uri = entry ? (context.redirectUris?.[Number(entry[1])] ?? "") : "";
    values.max = violation.code === "too_many" ? LIMITS.redirectUris : LIMITS.url;
  } else if (form === "webhook") {
    key =
      field === "eventTypes" && violation.code === "required"
        ? "webhookNoEvents"
        : (WEBHOOK_KEYS[violation.code] ?? FIELD_KEYS[violation.code]);
    values.max = LIMITS.url;
  } else if (form === "branding" && (field === "logo" || field === "logoUrl")) {
    key = LOGO_KEYS[violation.code] ?? FIELD_KEYS[violation.code];
    values.max = violation.code === "too_large" ? LIMITS.logoKiB : LIMITS.url;
  } else {
    key = FIELD_KEYS[violation.code];
    values.max = maxFor(form, field);
    if (violation.code === "outside_domain") values.domain = context.domain ?? "";
  }
  return { input: field, label, key: key ?? "invalid", values };
}

/** Request-level refusals (`error` of the `{error, error_description}` body), by message key. */
const REQUEST_KEYS: Record<string, string> = {
  login_required: "signedOut",
  csrf: "stalePage",
  not_owner: "notOwner",
  temporarily_unavailable: "unavailable",
  not_found: "gone",
  conflict: "conflict",
  key_changed: "keyChanged",
  invalid_public_key: "invalidPublicKey",
  invalid_challenge: "invalidChallenge",
  signup_closed: "signupClosed",
  recipient_key_required: "recipientKeyRequired",
  too_many_endpoints: "tooManyEndpoints",
};

/** The key (under `Dashboard.errors.request`) for a refusal that names no field. */
export function requestErrorKey(status: number, error: unknown): string {
  if (typeof error === "string" && error in REQUEST_KEYS) return REQUEST_KEYS[error] ?? "failed";
  if (status === 401) return "signedOut";
  if (status === 429) return "tooMany";
  if (status === 503 || status === 0) return "unavailable";
  return "failed";
}
