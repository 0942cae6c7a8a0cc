import type { FlowStep } from "../db/generated/enums";
import { SCREEN_BRANDING_SELECT } from "../partners/branding";
import { countSignedIn, countStarted } from "../analytics/counters";
import { db } from "../db/client";
import { keyedHash, matchesKeyedHash } from "../crypto/keyed-hash";
import { randomToken } from "../crypto/random";
import { getEnv } from "../env";
import { cookieName, readCookie, serializeCookie } from "../http/cookies";

/**
 * Flows: one authorization request each (docs/architecture.md#domain-model), bound to the browser
 * by the Connect flow cookie (1 hour, /docs/errors). The cookie carries the flow
 * id and a secret; only the secret's keyed hash is stored.
 */

export const FLOW_LIFETIME_SECONDS = 60 * 60;

const isHttps = () => getEnv().issuer.startsWith("https://");
export const flowCookieName = () => cookieName("bc_flow", isHttps());

export interface FlowRequest {
  clientId: string;
  redirectUri: string;
  state: string | null;
  codeChallenge: string;
  scope: string;
  locale: string | null;
  loginHint: string | null;
  challenge: string | null;
  renewConnectionId: string | null;
}

/** What a new flow takes over from the browser's flow it continues (./continuation.ts). */
export interface FlowContinuation {
  analyticsMarks: number;
  analyticsStart: Date;
}

export async function createFlow(
  input: FlowRequest,
  now = new Date(),
  continues: FlowContinuation | null = null,
): Promise<{ flowId: string; setCookie: string }> {
  const secret = randomToken();
  const flow = await db().flow.create({
    data: {
      ...input,
      cookieHash: keyedHash("flow-cookie", secret),
      csrfSecret: randomToken(),
      createdAt: now,
      analyticsMarks: continues?.analyticsMarks ?? 0,
      analyticsStart: continues?.analyticsStart ?? now,
      expiresAt: new Date(now.getTime() + FLOW_LIFETIME_SECONDS * 1000),
    },
    select: { id: true },
  });
  await countStarted(flow.id);
  const setCookie = serializeCookie(flowCookieName(), `${flow.id}.${secret}`, {
    maxAgeSeconds: FLOW_LIFETIME_SECONDS,
    https: isHttps(),
  });
  return { flowId: flow.id, setCookie };
}

/**
 * Takes the signed-in person off the flow (they signed out): whoever signs in
 * next starts at the first step, consent included.
 */
export async function detachUser(flowId: string): Promise<void> {
  await db().flow.update({
    where: { id: flowId },
    data: { userId: null, step: "login", consentedAt: null },
  });
}

/** The live flow bound to this browser, or null. */
export function findBrowserFlow(request: Request, now = new Date()) {
  return findFlowByCookie(readCookie(request, flowCookieName()), now);
}

/** The live flow a flow-cookie value stands for, or null (server components read the cookie). */
export async function findFlowByCookie(value: string | null | undefined, now = new Date()) {
  const found = await findFlowRecordByCookie(value, now);
  return found?.status === "live" ? found.flow : null;
}

/** Whether a flow can still go on, was finished (approved or cancelled), or ran out of time. */
export type FlowStatus = "live" | "finished" | "expired";

/**
 * The flow a flow-cookie value stands for in any state, read-only: the error
 * and "you're done" screens show the partner's branding and a way back to the
 * partner after the flow ended. Nothing here lets a finished flow act again.
 */
export async function findFlowRecordByCookie(value: string | null | undefined, now = new Date()) {
  const match = value ? /^([0-9a-f-]{36})\.([A-Za-z0-9_-]{20,100})$/.exec(value) : null;
  if (!match) return null;
  const [, flowId = "", secret = ""] = match;
  const flow = await db().flow.findUnique({
    where: { id: flowId },
    include: {
      user: { select: { id: true, email: true, publicKey: true, publicKeyAt: true, locale: true } },
      client: {
        select: {
          id: true,
          name: true,
          partner: {
            select: {
              id: true,
              name: true,
              status: true,
              recipientPublicKey: true,
              ...SCREEN_BRANDING_SELECT,
              defaultLanguage: true,
            },
          },
        },
      },
    },
  });
  if (!flow) return null;
  if (!matchesKeyedHash("flow-cookie", secret, flow.cookieHash)) return null;
  const status: FlowStatus = flow.completedAt
    ? "finished"
    : flow.expiresAt <= now
      ? "expired"
      : "live";
  return { flow, status };
}

/**
 * The partner's own site, for "return to the partner" links once a flow can no
 * longer relay: the origin of the flow's registered redirect URI (checked
 * exactly at authorization), and only for http(s) addresses. A partner served
 * from this service's own origin (the demo, `/demo/callback`) is at its
 * redirect URI's folder (`/demo`): the origin would be this service's home
 * page, not the partner.
 */
export function partnerSiteOf(redirectUri: string): string | null {
  try {
    const url = new URL(redirectUri);
    if (url.protocol !== "https:" && url.protocol !== "http:") return null;
    if (url.origin !== new URL(getEnv().issuer).origin) return url.origin;
    return url.pathname.replace(/\/[^/]*$/, "") || "/";
  } catch {
    return null;
  }
}

/** Who will open the data: the partner (its recipient key) or the user (own key). */
export type KeyMode = "partner" | "user";

export function keyModeOf(partner: { recipientPublicKey: string | null } | null): KeyMode {
  return partner?.recipientPublicKey ? "partner" : "user";
}

/**
 * The key mode of a flow for this tenant. A tenant stays sealed to the key it
 * was created with (docs/key-modes.md), so the mode follows that key: a user
 * who connected with their own key before the partner installed one keeps
 * the user-key path (the browser relays the key that opens the data); a
 * tenant not sealed yet takes the partner's recipient key if there is one.
 */
export async function keyModeFor(
  partner: { recipientPublicKey: string | null } | null,
  tenantSubject: string,
): Promise<KeyMode> {
  const tenant = await db().tenant.findUnique({
    where: { subject: tenantSubject },
    select: { sealingKeyKind: true },
  });
  return tenant?.sealingKeyKind ?? keyModeOf(partner);
}

/**
 * Per /docs/flow, in user-key mode onboarding (key setup, a first bank) comes
 * before consent; in partner-key mode consent comes first.
 */
export function firstStepFor(input: {
  keyMode: KeyMode;
  userHasKey: boolean;
  tenantHasConnection: boolean;
}): FlowStep {
  if (input.keyMode === "partner") return "consent";
  if (!input.userHasKey) return "key_setup";
  if (!input.tenantHasConnection) return "banks";
  return "consent";
}

export const STEP_PATHS: Record<FlowStep, string> = {
  login: "/login",
  key_setup: "/setup",
  banks: "/banks",
  consent: "/consent",
  relay: "/consent",
  done: "/",
};

/** Where the bank's consent for a renewal starts (renew_connection, /docs/flow). */
export const RENEW_PATH = "/banks/renew";

/**
 * Signs the flow's user in and moves it to the first step that user still
 * needs. A renewal of one of the tenant's connections goes straight to that
 * bank's consent (once the user's key exists, in user-key mode). Any consent
 * given before is dropped: it belongs to an earlier sign-in.
 */
export async function attachUser(
  flow: { id: string; renewConnectionId: string | null },
  user: { id: string; publicKey: string | null },
  keyMode: KeyMode,
  tenantSubject: string,
): Promise<{ step: FlowStep; path: string }> {
  const connections = await db().connection.findMany({
    where: { tenant: { subject: tenantSubject } },
    select: { id: true },
  });
  const userHasKey = Boolean(user.publicKey);
  const renewing =
    flow.renewConnectionId !== null &&
    connections.some((connection) => connection.id === flow.renewConnectionId) &&
    (keyMode === "partner" || userHasKey);
  const step = renewing
    ? "banks"
    : firstStepFor({ keyMode, userHasKey, tenantHasConnection: connections.length > 0 });
  await db().flow.update({
    where: { id: flow.id },
    data: { userId: user.id, step, consentedAt: null },
  });
  await countSignedIn(flow.id);
  return { step, path: renewing ? RENEW_PATH : STEP_PATHS[step] };
}
