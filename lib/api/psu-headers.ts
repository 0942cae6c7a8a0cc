import { isPublicIpAddress } from "../http/ip-address";
import type { ApiKeyPrincipal } from "../keys/api-keys";
import { PSU_HEADERS, toPsuGeoLocation } from "../upstream/psu-headers";

/**
 * Per /docs/sync, the account holder's own request details, forwarded to the
 * bank on a sync while the holder is on the partner's page (the names in
 * lib/upstream/psu-headers.ts). Honoured only from a key a Connect client
 * issued, and only with a public IP address and a user agent; otherwise
 * nothing is forwarded. A geo-location not in the `GEO:<lat>;<long>` form is
 * left out (the others are still forwarded).
 */

const MAX_VALUE_LENGTH = 1024;

export function psuHeadersOf(
  request: Request,
  principal: Pick<ApiKeyPrincipal, "partnerId">,
): Record<string, string> | undefined {
  if (principal.partnerId === null) return undefined;
  const forwarded: Record<string, string> = {};
  for (const { partner, upstream } of PSU_HEADERS) {
    const value = request.headers.get(partner)?.trim();
    if (!value || value.length > MAX_VALUE_LENGTH) continue;
    if (upstream === "Psu-Geo-Location") {
      const location = toPsuGeoLocation(value);
      if (location) forwarded[upstream] = location;
    } else forwarded[upstream] = value;
  }
  const ip = forwarded["Psu-Ip-Address"];
  if (!ip || !isPublicIpAddress(ip) || !forwarded["Psu-User-Agent"]) return undefined;
  return forwarded;
}
