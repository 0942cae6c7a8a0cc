import { PartnerError } from "./errors";

/**
 * A partner's pinned registered domain (docs/architecture.md#domain-model): when set, the
 * branding links must sit under it (supportUrl, termsUrl,
 * privacyUrl of docs/protocol.md#branding; checked by isUnderDomain in ./branding-record.ts). It is stored
 * as a bare, lower-case ASCII DNS name such as `acme.example`, the form in
 * which the WHATWG URL parser reports hostnames, so a link's hostname can be
 * compared with it as plain strings.
 */

/** RFC 1035 §2.3.4: a name is at most 253 characters (255 octets on the wire). */
export const MAX_DOMAIN_LENGTH = 253;
/** RFC 1035 §2.3.4: a label is at most 63 characters. */
const MAX_LABEL_LENGTH = 63;

/** RFC 1123 §2.1 host label: letters, digits and hyphens, no hyphen at either end. */
const LABEL = /^[a-z0-9](?:[a-z0-9-]*[a-z0-9])?$/;

/**
 * Parses an administrator's input into the stored domain: trimmed and
 * lower-cased; a blank value means "no pinned domain" (null). Anything that
 * is not a bare registrable DNS name throws PartnerError("invalid_domain").
 */
export function parseRegisteredDomain(raw: string): string | null {
  const domain = raw.trim().toLowerCase();
  if (domain === "") return null;
  const problem = describeDomainProblem(domain);
  if (problem) {
    throw new PartnerError(
      "invalid_domain",
      `the registered domain ${JSON.stringify(raw.trim())} ${problem}`,
    );
  }
  return domain;
}

/** Why a trimmed, lower-cased value is not a bare DNS name, or null when it is one. */
function describeDomainProblem(domain: string): string | null {
  if (domain.includes("://")) return "must be a bare domain, without a scheme";
  if (/[/?#]/.test(domain)) return "must be a bare domain, without a path, query or fragment";
  if (domain.includes("@")) return "must be a bare domain, without credentials";
  if (domain.includes(":")) return "must be a bare domain, without a port";
  if (/[^\x21-\x7e]/.test(domain)) {
    return /\s/.test(domain)
      ? "must not contain spaces"
      : "must be ASCII (write an internationalized name in its xn-- form)";
  }
  if (domain.length > MAX_DOMAIN_LENGTH) {
    return `must be at most ${MAX_DOMAIN_LENGTH} characters`;
  }
  const labels = domain.split(".");
  if (labels.length < 2) return "must have at least two labels, like acme.example";
  if (labels.some((label) => label === "")) return "must not have empty labels";
  if (labels.some((label) => label.length > MAX_LABEL_LENGTH)) {
    return `must not have a label longer than ${MAX_LABEL_LENGTH} characters`;
  }
  if (!labels.every((label) => LABEL.test(label))) {
    return "may only contain letters, digits and hyphens, with no hyphen at the start or end of a label";
  }
  // No top-level domain is numeric; this also keeps IPv4 addresses out.
  if (/^[0-9]+$/.test(labels[labels.length - 1] ?? "")) {
    return "must end in a top-level domain, not a number (IP addresses are not allowed)";
  }
  return null;
}
