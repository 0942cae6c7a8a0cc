/**
 * The PSU headers: the account holder's own request details, which a partner
 * forwards on a sync made while the holder is on its page (/docs/sync), and
 * which the service passes to the bank. Each has three names: the partner's
 * (`X-Psu-…`), Enable Banking's request header (`Psu-…`), and the lower-case
 * form in which Enable Banking's `GET /aspsps` lists a bank's
 * `required_psu_headers` (`psu-ip-address`).
 *
 * A read that carries PSU headers is the holder's own; one without them is a
 * background read. A bank that lists `required_psu_headers` answers a read
 * with the holder present but without all of them with
 * `PSU_HEADER_NOT_PROVIDED`, while a background read does not need them.
 */

export const PSU_HEADERS = [
  { partner: "X-Psu-Ip-Address", upstream: "Psu-Ip-Address" },
  { partner: "X-Psu-User-Agent", upstream: "Psu-User-Agent" },
  { partner: "X-Psu-Referer", upstream: "Psu-Referer" },
  { partner: "X-Psu-Accept", upstream: "Psu-Accept" },
  { partner: "X-Psu-Accept-Language", upstream: "Psu-Accept-Language" },
  { partner: "X-Psu-Accept-Charset", upstream: "Psu-Accept-Charset" },
  { partner: "X-Psu-Accept-Encoding", upstream: "Psu-Accept-Encoding" },
  { partner: "X-Psu-Geo-Location", upstream: "Psu-Geo-Location" },
] as const;

export type PsuHeader = (typeof PSU_HEADERS)[number];

/** Without both of these nothing is forwarded: a read with them is one with the holder present. */
export const PRESENCE_PSU_HEADERS = ["psu-ip-address", "psu-user-agent"] as const;

const PSU_HEADER_NAME = /^psu-[a-z0-9-]{1,60}$/;

/**
 * A bank's `required_psu_headers` as the service keeps them: lower case,
 * trimmed, each once, in the bank's order; anything that is not a header name
 * is left out.
 */
export function normalizeRequiredPsuHeaders(names: readonly string[]): string[] {
  const normalized = names.map((name) => name.trim().toLowerCase());
  return [...new Set(normalized.filter((name) => PSU_HEADER_NAME.test(name)))];
}

/** The stored form (a column): comma-separated; "" for none; null when not known. */
export function toStoredPsuHeaders(names: readonly string[] | null | undefined): string | null {
  return names ? normalizeRequiredPsuHeaders(names).join(",") : null;
}

export function fromStoredPsuHeaders(stored: string | null | undefined): string[] | null {
  if (stored === null || stored === undefined) return null;
  return normalizeRequiredPsuHeaders(stored.split(","));
}

/**
 * The partner's names of the `required` headers the service forwards that
 * `given` (upstream names, as forwarded) lacks, in the order of PSU_HEADERS.
 * A header the service does not forward is not listed: no partner can send it.
 */
export function missingPsuHeaders(
  required: readonly string[],
  given: Readonly<Record<string, string>> | undefined,
): string[] {
  const wanted = new Set(normalizeRequiredPsuHeaders(required));
  const present = new Set(Object.keys(given ?? {}).map((name) => name.toLowerCase()));
  return PSU_HEADERS.filter(
    (header) =>
      wanted.has(header.upstream.toLowerCase()) && !present.has(header.upstream.toLowerCase()),
  ).map((header) => header.partner);
}

/**
 * What a partner must send for a read with the holder present at a bank that
 * requires `required`: those headers, and the IP address and user agent
 * without which nothing is forwarded.
 */
export function psuHeadersToSend(required: readonly string[]): string[] {
  return missingPsuHeaders([...PRESENCE_PSU_HEADERS, ...required], undefined);
}

/**
 * `Psu-Geo-Location` as Enable Banking (after the Berlin Group's PSU-Geo-Location) takes it:
 * `GEO:<latitude>;<longitude>` in decimal degrees, e.g. `GEO:52.506931;13.144558`. The value in
 * that form (the prefix in capitals), or null for anything else.
 */
const GEO_LOCATION = /^GEO:([+-]?\d{1,2}(?:\.\d{1,8})?);([+-]?\d{1,3}(?:\.\d{1,8})?)$/i;

export function toPsuGeoLocation(value: string): string | null {
  const match = GEO_LOCATION.exec(value.trim());
  if (!match?.[1] || !match[2]) return null;
  if (Math.abs(Number(match[1])) > 90 || Math.abs(Number(match[2])) > 180) return null;
  return `GEO:${match[1]};${match[2]}`;
}
