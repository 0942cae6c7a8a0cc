import { db } from "../db/client";
import { SCREEN_BRANDING_SELECT, toScreenBranding } from "../partners/branding";
import { findFlowRecordByCookie, partnerSiteOf, RENEW_PATH, STEP_PATHS } from "./flows";

/**
 * Ways forward for a browser whose page no longer matches its flow: an
 * expired or finished flow, a tab whose flow was replaced, Back after the
 * relay. Every such answer leads somewhere that works: the flow's current
 * screen while it is live, the partner's site once it is over.
 */

/** The error screen; it works out from the flow cookie what to offer. */
export const FLOW_ENDED_PATH = "/error?reason=expired";
/** The error screen for a form posted from a tab whose flow this browser has replaced. */
export const STALE_TAB_PATH = "/error?reason=stale_tab";

export const seeOther = (location: string) =>
  new Response(null, { status: 303, headers: { Location: location, "Cache-Control": "no-store" } });

/**
 * The screen a live flow is at, for "continue where you left off". A flow
 * signed in by someone else than this browser's user (or nobody) resumes at
 * its sign-in, which sends a signed-in person on.
 */
export function resumePath(
  flow: { step: keyof typeof STEP_PATHS; userId: string | null; renewConnectionId: string | null },
  signedInUserId: string | null,
): string {
  if (!flow.userId || flow.userId !== signedInUserId) return "/login";
  if (flow.step === "banks" && flow.renewConnectionId) return RENEW_PATH;
  return STEP_PATHS[flow.step === "done" || flow.step === "relay" ? "consent" : flow.step];
}

export type FlowOutcome =
  | { kind: "live"; resume: string }
  | { kind: "approved" | "cancelled" | "expired"; partnerSite: string | null };

/**
 * What the browser's flow cookie stands for, in any state (read-only): the
 * error screen shows the flow's partner and the way forward that fits.
 */
export async function lookUpBrowserFlow(
  cookieValue: string | null | undefined,
  signedInUserId: string | null,
  now = new Date(),
) {
  const record = await findFlowRecordByCookie(cookieValue, now);
  if (!record) return null;
  const { flow, status } = record;
  const partnerSite = partnerSiteOf(flow.redirectUri);
  let outcome: FlowOutcome;
  if (status === "live") {
    outcome = { kind: "live", resume: resumePath(flow, signedInUserId) };
  } else if (status === "expired") {
    outcome = { kind: "expired", partnerSite };
  } else {
    // A finished flow either minted a code (approved) or was cancelled.
    const codes = await db().authorizationCode.count({ where: { flowId: flow.id } });
    outcome = { kind: codes > 0 ? "approved" : "cancelled", partnerSite };
  }
  return { flow, outcome };
}

/**
 * The branding and site of a flow known by id (the one a sign-in link was
 * requested for), for a page opened outside that flow's browser. Read-only.
 */
export async function flowBrandingById(flowId: string | null) {
  if (!flowId) return null;
  const flow = await db().flow.findUnique({
    where: { id: flowId },
    select: {
      redirectUri: true,
      client: {
        select: {
          name: true,
          partner: {
            select: {
              name: true,
              ...SCREEN_BRANDING_SELECT,
            },
          },
        },
      },
    },
  });
  if (!flow) return null;
  return {
    branding: toScreenBranding(flow.client.partner, flow.client.name),
    partnerSite: partnerSiteOf(flow.redirectUri),
  };
}
