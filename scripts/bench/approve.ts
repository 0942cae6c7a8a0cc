import { performance } from "node:perf_hooks";
import { tenantSubject } from "../../lib/banking/tenants";
import { generateKeyPair } from "../../lib/crypto/envelope";
import { db } from "../../lib/db/client";
import { csrfToken } from "../../lib/flow/csrf";
import { attachUser } from "../../lib/flow/flows";
import {
  createTestClient,
  createTestUser,
  signedInCookie,
  startTestFlow,
} from "../../test/oauth-fixtures";
import { sleep, type HttpClient } from "../lib/load-client";
import { median } from "./measure";

/**
 * Approve → consent over HTTP against the running service, as a browser
 * takes it: a signed-in user-key flow picks the bank (POST /banks/start),
 * then the clock starts at the sandbox's Approve (POST
 * /sandbox/authorize/decision) and follows every redirect, the progress
 * screen and its status poll, until GET /consent answers 200: the moment the
 * consent screen can be shown. The status is polled every 50 ms here (the
 * screen's own script polls every 400 ms), so what is measured is the
 * service, not the poll. The whole history is stored at the time the ingest
 * recorded itself done, which a later poll notices.
 */

const POLL_MS = 50;
/**
 * After the consent screen a browser polls no more; the bench asks until the
 * ingest is done only at the screen's own rate (the time measured is the
 * ingest's own record, not when the poll saw it), so as not to load the
 * service more than a person would while the history is stored.
 */
const HISTORY_POLL_MS = 400;

export interface ApproveTiming {
  /** Decision POST to the consent screen's 200. */
  toConsentMs: number;
  /** Decision POST to the progress screen's 200 (the first thing the person sees). */
  toProgressMs: number;
  /** Decision POST to the whole history stored (status `done`). */
  toHistoryMs: number;
  transactions: number;
}

export async function approveToConsent(
  http: HttpClient,
  origin: string,
  bank: { name: string; country: string; psuType: "personal" | "business" },
  headers: () => Record<string, string>,
): Promise<ApproveTiming> {
  const client = await createTestClient();
  const keys = generateKeyPair();
  const user = await db().user.update({
    where: { id: (await createTestUser()).id },
    data: { publicKey: keys.publicKeyRawB64 },
  });
  const { flowId, setCookie } = await startTestFlow(client);
  await attachUser(
    { id: flowId, renewConnectionId: null },
    user,
    "user",
    tenantSubject(client.partnerId, user),
  );
  const flow = await db().flow.findUniqueOrThrow({ where: { id: flowId } });
  const cookie = `${setCookie.split(";")[0]}; ${(await signedInCookie(user.id)).split(";")[0]}`;
  const browser = (extra: Record<string, string> = {}) => ({
    Cookie: cookie,
    ...headers(),
    ...extra,
  });
  const form = { "Content-Type": "application/x-www-form-urlencoded", Origin: origin };

  const started = await http({
    method: "POST",
    path: "/banks/start",
    headers: browser(form),
    body: new URLSearchParams({
      csrf: csrfToken(flow, "bank"),
      bank: bank.name,
      country: bank.country,
      psuType: bank.psuType,
    }).toString(),
  });
  const bankPage = new URL(String(started.headers.location ?? ""), origin);
  const authorization = bankPage.searchParams.get("authorization");
  if (started.status !== 303 || !authorization) {
    throw new Error(`/banks/start answered ${started.status} to ${bank.name}`);
  }

  const t0 = performance.now();
  const approvedAt = Date.now();
  const decided = await http({
    method: "POST",
    path: "/sandbox/authorize/decision",
    headers: browser(form),
    body: new URLSearchParams({ authorization, decision: "approve" }).toString(),
  });
  const back = new URL(String(decided.headers.location ?? ""));
  const callback = await http({ path: `${back.pathname}${back.search}`, headers: browser() });
  if (callback.headers.location !== "/banks/progress") {
    throw new Error(`the callback answered ${callback.status} ${callback.headers.location}`);
  }
  const progress = await http({ path: "/banks/progress", headers: browser() });
  const toProgressMs = performance.now() - t0;
  let next = progress.status === 200 ? null : String(progress.headers.location ?? "");
  while (!next) {
    const answer = await http({ path: "/banks/progress/status", headers: browser() });
    const status = JSON.parse(answer.body) as { ready?: boolean; state?: string };
    if (status.state === "failed") throw new Error(`connecting ${bank.name} failed`);
    if (status.ready) next = "/banks/finish";
    else await sleep(POLL_MS);
  }
  const finish = await http({ path: next, headers: browser() });
  const consent = await http({ path: String(finish.headers.location ?? ""), headers: browser() });
  const toConsentMs = performance.now() - t0;
  if (consent.status !== 200 || finish.headers.location !== "/consent") {
    throw new Error(
      `expected the consent screen, got ${finish.headers.location} ${consent.status}`,
    );
  }

  for (;;) {
    const answer = await http({ path: "/banks/progress/status", headers: browser() });
    if ((JSON.parse(answer.body) as { state?: string }).state === "done") break;
    await sleep(HISTORY_POLL_MS);
  }
  const noticedMs = performance.now() - t0;
  // The ingest records `done` (with the time, heartbeatAt) once every account's history
  // transaction has committed; a poll notices it up to HISTORY_POLL_MS later. Same machine,
  // same clock.
  const ingest = await db().bankIngest.findFirstOrThrow({
    where: { flowId },
    orderBy: { createdAt: "desc" },
  });
  const toHistoryMs = Math.min(noticedMs, ingest.heartbeatAt.getTime() - approvedAt);
  const transactions = await db().transaction.count({
    where: {
      account: { connection: { tenant: { subject: tenantSubject(client.partnerId, user) } } },
    },
  });
  return { toConsentMs, toProgressMs, toHistoryMs, transactions };
}

/** What a row of the report shows: each figure the median of the samples' own. */
export interface ApproveSummary extends ApproveTiming {
  /** Transactions per second of the whole history, from Approve. */
  ingestRate: number;
}

/** Each figure's median over the samples (a fast consent and a slow history may be different samples). */
export function summarizeApprovals(timings: readonly ApproveTiming[]): ApproveSummary {
  const of = (figure: (timing: ApproveTiming) => number) => median(timings.map(figure));
  return {
    toProgressMs: of((timing) => timing.toProgressMs),
    toConsentMs: of((timing) => timing.toConsentMs),
    toHistoryMs: of((timing) => timing.toHistoryMs),
    transactions: Math.round(of((timing) => timing.transactions)),
    ingestRate: of((timing) => timing.transactions / (timing.toHistoryMs / 1000)),
  };
}
