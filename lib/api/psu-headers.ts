import { isPublicIpAddress } from "../http/ip-address";
import type { ApiKeyPrincipal } from "../keys/api-keys";

/**
 * Per /docs/sync, the account holder's own request details, forwarded to the
 * bank on a sync while the holder is on the partner's page. Honoured only
 * from a key a Connect client issued, and only with a public IP address and
 * a user agent; otherwise nothing is forwarded.
 */
const FORWARDED = {
  "x-psu-ip-address": "Psu-Ip-Address",
  "x-psu-user-agent": "Psu-User-Agent",
  "x-psu-referer": "Psu-Referer",
  "x-psu-accept": "Psu-Accept",
  "x-psu-accept-language": "Psu-Accept-Language",
  "x-psu-accept-charset": "Psu-Accept-Charset",
  "x-psu-accept-encoding": "Psu-Accept-Encoding",
} as const;

const MAX_VALUE_LENGTH = 1024;

export function psuHeadersOf(
  request: Request,
  principal: Pick<ApiKeyPrincipal, "partnerId">,
): Record<string, string> | undefined {
  if (principal.partnerId === null) return undefined;
  const forwarded: Record<string, string> = {};
  for (const [incoming, outgoing] of Object.entries(FORWARDED)) {
    const value = request.headers.get(incoming)?.trim();
    if (value && value.length <= MAX_VALUE_LENGTH) forwarded[outgoing] = value;
  }
  const ip = forwarded["Psu-Ip-Address"];
  if (!ip || !isPublicIpAddress(ip) || !forwarded["Psu-User-Agent"]) return undefined;
  return forwarded;
}
