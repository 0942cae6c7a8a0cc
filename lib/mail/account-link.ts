/**
 * The address of "My access" in a mail about a partner (docs/account.md#back-to-the-partner):
 * it names the partner, so that the page offers the way back to it. The
 * page checks the person ever gave that partner access and links only the
 * partner's registered site.
 */
export const FROM_PARTNER_PARAM = "from";

export function accountPageUrl(issuer: string, partnerId: string | null): string {
  const query = partnerId ? `?${new URLSearchParams({ [FROM_PARTNER_PARAM]: partnerId })}` : "";
  return `${issuer}/account${query}`;
}
