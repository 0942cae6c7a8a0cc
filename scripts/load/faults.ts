import { randomUUID } from "node:crypto";
import { getEnv } from "../../lib/env";
import { flowCookieName } from "../../lib/flow/flows";
import { ENABLE_BANKING_FAILURES } from "../../lib/upstream/enable-banking/errors";
import { UPSTREAM_FAILURE_STATUS, type UpstreamFailureReason } from "../../lib/upstream/types";
import type { ScriptedAnswer } from "../../test/fake-enable-banking";
import { forwardedFor, type HttpAnswer, type HttpClient } from "../lib/load-client";
import { ACCOUNT_UIDS, type LoadBank } from "./bank";
import type { Population } from "./traffic";

/**
 * Upstream faults: the bank answers 5xx, rate-limits, or does not answer
 * before the connector's timeout. Each sync must answer the documented
 * reason with its status (and an integer Retry-After where one applies),
 * and a sync afterwards must succeed again.
 */

interface FaultCase {
  label: string;
  answer?: ScriptedAnswer;
  delayMs?: number;
  reason: UpstreamFailureReason;
  retryAfter?: string;
}

const CASES: FaultCase[] = [
  {
    label: "bank answers 500",
    answer: { status: 500, body: { code: 500, message: "Internal error" } },
    reason: ENABLE_BANKING_FAILURES.serverError,
  },
  {
    label: "bank answers 502 with an HTML page",
    answer: { status: 502, rawBody: "<html><body>Bad gateway</body></html>" },
    reason: ENABLE_BANKING_FAILURES.serverError,
  },
  {
    label: "bank answers 503 ASPSP_TIMEOUT",
    answer: { status: 503, body: { code: 503, error: "ASPSP_TIMEOUT", message: "Timeout" } },
    reason: ENABLE_BANKING_FAILURES.byCode.ASPSP_TIMEOUT,
  },
  {
    label: "bank rate-limits with Retry-After: 30",
    answer: {
      status: 429,
      body: { code: 429, error: "ASPSP_RATE_LIMIT_EXCEEDED", message: "Too many" },
      headers: { "Retry-After": "30" },
    },
    reason: ENABLE_BANKING_FAILURES.byCode.ASPSP_RATE_LIMIT_EXCEEDED,
    retryAfter: "30",
  },
  {
    label: "bank does not answer within the timeout",
    delayMs: 21_000,
    reason: ENABLE_BANKING_FAILURES.unreachable,
  },
];

export interface FaultResult {
  label: string;
  expected: string;
  got: string;
  ok: boolean;
}

export async function upstreamFaults(
  http: HttpClient,
  bank: LoadBank,
  population: Population,
): Promise<FaultResult[]> {
  const user = population.users[0];
  if (!user) throw new Error("no users");
  const sync = () =>
    http({
      method: "POST",
      path: `/api/accounts/${user.accountIds[0]}/sync`,
      headers: {
        Authorization: `Bearer ${user.key}`,
        "Content-Type": "application/json",
        ...forwardedFor(9_999),
      },
      body: JSON.stringify({ uid: ACCOUNT_UIDS[0] }),
    });

  const results: FaultResult[] = [];
  for (const fault of CASES) {
    bank.fake.script.length = 0;
    if (fault.answer) for (let i = 0; i < 8; i += 1) bank.fake.script.push(fault.answer);
    bank.fake.delayMs = fault.delayMs ?? 0;
    const answer = await sync();
    bank.fake.script.length = 0;
    bank.fake.delayMs = 0;
    const status = UPSTREAM_FAILURE_STATUS[fault.reason];
    const body = JSON.parse(answer.body || "{}") as { status?: number; reason?: string };
    const header = answer.headers["retry-after"];
    // An integer Retry-After is passed on where the bank gave one.
    const retryOk = fault.retryAfter === undefined || header === fault.retryAfter;
    results.push({
      label: fault.label,
      expected: `${status} ${fault.reason}${fault.retryAfter ? ` Retry-After ${fault.retryAfter}` : ""}`,
      got: `${answer.status} ${body.reason ?? answer.body.slice(0, 60)}${header ? ` Retry-After ${header}` : ""}`,
      ok:
        answer.status === status &&
        body.status === status &&
        body.reason === fault.reason &&
        retryOk,
    });
  }
  const after = await sync();
  results.push({
    label: "bank healthy again",
    expected: "200",
    got: String(after.status),
    ok: after.status === 200,
  });
  return results;
}

/**
 * Browser screens while PostgreSQL is down: a screen that needs the flow and
 * a form post both land on the error screen, which renders without the
 * database and says the service is briefly unavailable.
 */
export async function browserScreensDuringOutage(http: HttpClient): Promise<FaultResult[]> {
  // A well-formed flow cookie, so that the screens must look the flow up.
  const flowCookie = `${randomUUID()}.${"x".repeat(43)}`;
  const cookie = { Cookie: `${flowCookieName()}=${flowCookie}`, ...forwardedFor(9_998) };
  const screen = await http({ path: "/login", headers: cookie });
  const post = await http({
    method: "POST",
    path: "/login/request",
    headers: {
      ...cookie,
      Origin: new URL(getEnv().issuer).origin,
      "Content-Type": "application/x-www-form-urlencoded",
    },
    body: "email=someone%40example.com&csrf=x",
  });
  const error = await http({ path: "/error?reason=unavailable", headers: cookie });
  const landsOnError = (answer: HttpAnswer) =>
    answer.headers.location?.endsWith("/error?reason=unavailable") ?? false;
  const describe = (answer: HttpAnswer) =>
    `${answer.status} ${landsOnError(answer) ? "→ error screen" : (answer.headers.location ?? "")}`;
  const unavailable = "The service is briefly unavailable";
  return [
    {
      label: "a flow screen while PostgreSQL is down",
      expected: "307 → error screen",
      got: describe(screen),
      ok: screen.status === 307 && landsOnError(screen),
    },
    {
      label: "a flow form post while PostgreSQL is down",
      expected: "303 → error screen",
      got: describe(post),
      ok: post.status === 303 && landsOnError(post),
    },
    {
      label: "the error screen while PostgreSQL is down",
      expected: `200 "${unavailable}…"`,
      got: `${error.status}${error.body.includes(unavailable) ? ` "${unavailable}…"` : ""}`,
      ok: error.status === 200 && error.body.includes(unavailable),
    },
  ];
}
