import { db } from "../db/client";
import { lookUpBrowserFlow, resumePath } from "../flow/dead-ends";
import { partnerSiteOf } from "../flow/flows";
import { SCREEN_BRANDING_SELECT, toScreenBranding } from "../partners/branding";

/**
 * The way from "My access" back to the partner a person came from
 * (docs/account.md#back-to-the-partner): the flow this browser is in, or
 * the partner a mail's link names. Only addresses the partner registered
 * are ever linked (its redirect URIs' sites), so no parameter can make the
 * page link anywhere else.
 */
export interface WayBack {
  partnerId: string;
  /** The partner's name as its screens show it. */
  partner: string;
  /** Where "Back to the partner" goes now: the flow's current screen while it is live, else the site. */
  href: string;
  /** The partner's own site, for after everything was deleted (the flow then starts over there). */
  site: string | null;
}

const isUuid = (value: string) =>
  /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(value);

/**
 * The way back for a signed-in person: the browser's flow (when it is theirs
 * or no one's yet), else the partner named by `from` if
 * the person ever gave it access, with the site of the newest flow they
 * went through for it.
 */
export async function wayBackForUser(input: {
  flowCookie: string | null | undefined;
  userId: string;
  from?: string | null;
}): Promise<WayBack | null> {
  const fromFlow = await wayBackOfBrowserFlow(input.flowCookie, input.userId);
  if (fromFlow) return fromFlow;
  const partnerId = input.from ?? "";
  if (!isUuid(partnerId)) return null;
  const flow = await db().flow.findFirst({
    where: { userId: input.userId, client: { partnerId } },
    orderBy: [{ createdAt: "desc" }, { id: "desc" }],
    select: { redirectUri: true, client: { select: { name: true } } },
  });
  const tenant = await db().tenant.findFirst({
    where: { userId: input.userId, partnerId },
    select: { partner: { select: { id: true, name: true, ...SCREEN_BRANDING_SELECT } } },
  });
  const site = flow ? partnerSiteOf(flow.redirectUri) : null;
  if (!tenant?.partner || !site) return null;
  const branding = toScreenBranding(tenant.partner, flow?.client.name ?? tenant.partner.name);
  return { partnerId, partner: branding.name, href: site, site };
}

async function wayBackOfBrowserFlow(
  cookie: string | null | undefined,
  userId: string | null,
): Promise<WayBack | null> {
  const found = await lookUpBrowserFlow(cookie, userId);
  const partner = found?.flow.client.partner;
  if (!found || !partner) return null;
  const { flow, outcome } = found;
  // Another person's flow in this browser says nothing to this one.
  if (flow.userId !== null && flow.userId !== userId) return null;
  const site = partnerSiteOf(flow.redirectUri);
  const name = toScreenBranding(partner, flow.client.name).name;
  if (outcome.kind === "live") {
    return { partnerId: partner.id, partner: name, href: resumePath(flow, userId), site };
  }
  return site ? { partnerId: partner.id, partner: name, href: site, site } : null;
}

/**
 * The way back once everything was deleted (the person is signed out):
 * the browser's flow's partner site, else the partner and site the page
 * was given, if that site is one of the partner's registered ones.
 */
export async function wayBackAfterDeletion(input: {
  flowCookie: string | null | undefined;
  partnerId?: string | null;
  site?: string | null;
}): Promise<{ partner: string; href: string } | null> {
  const fromFlow = await wayBackOfBrowserFlow(input.flowCookie, null);
  if (fromFlow?.site) return { partner: fromFlow.partner, href: fromFlow.site };
  const partnerId = input.partnerId ?? "";
  if (!isUuid(partnerId) || !input.site) return null;
  const partner = await db().partner.findUnique({
    where: { id: partnerId },
    select: {
      name: true,
      ...SCREEN_BRANDING_SELECT,
      clients: { select: { name: true, redirectUris: true } },
    },
  });
  const registered = partner?.clients.some((client) =>
    client.redirectUris.some((uri) => partnerSiteOf(uri) === input.site),
  );
  if (!partner || !registered) return null;
  return { partner: toScreenBranding(partner, partner.name).name, href: input.site };
}

/** Where "Delete everything" lands: /account/deleted, with the partner to return to when known. */
export function deletedPagePath(back: WayBack | null): string {
  if (!back?.site) return "/account/deleted";
  return `/account/deleted?${new URLSearchParams({ partner: back.partnerId, site: back.site })}`;
}
