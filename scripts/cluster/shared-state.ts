import { db } from "../../lib/db/client";
import { RATE_LIMIT_POLICIES } from "../../lib/ratelimit/policies";
import {
  createTestClient,
  issueCode,
  mintApiKey,
  newVerifier,
  type TestClient,
} from "../../test/oauth-fixtures";
import { sleep } from "../lib/load-client";
import { basicAuth, clientAddress, FORM, formBody, send, upstreamOf, type Answer } from "./http";
import type { ClusterContext } from "./types";

/**
 * What the instances must share, proven over HTTP: the rate-limit counters
 * (Redis), revocations and single-use codes (PostgreSQL).
 */

const MINUTE = 60_000;
const port = (origin: string) => new URL(origin).port;

/** Through the proxy from `address`, or to an instance directly as the proxy would forward it. */
function viaProxy(context: ClusterContext, path: string, address: string, extra = {}) {
  return send(`${context.proxy}${path}`, { from: address, headers: extra });
}
function direct(
  origin: string,
  path: string,
  address: string,
  request: { method?: string; headers?: Record<string, string>; body?: string } = {},
) {
  return send(`${origin}${path}`, {
    ...request,
    headers: { "X-Forwarded-For": address, ...request.headers },
  });
}

function tally(answers: Answer[], pick: (answer: Answer) => string): string {
  const counts = new Map<string, number>();
  for (const answer of answers) counts.set(pick(answer), (counts.get(pick(answer)) ?? 0) + 1);
  return [...counts].map(([value, count]) => `${value}×${count}`).join(" ");
}

/**
 * (a) The authorize policy's budget, spent by one client through the proxy
 * (which spreads it over every instance), leaves that client refused by each
 * instance, through the proxy or directly, and also with a forged
 * X-Forwarded-For; another client is still served. The counters are windows of
 * a minute aligned to the clock, so a run that crosses a minute's end tries
 * again in the next one.
 */
export async function rateLimitsAreGlobal(context: ClusterContext): Promise<void> {
  const { limit } = RATE_LIMIT_POLICIES.authorize;
  const path = "/oauth/authorize?client_id=obc_cluster_rate_limit";
  for (let attempt = 1; ; attempt += 1) {
    // A window with too little left for the whole check: wait for the next one.
    if (MINUTE - (Date.now() % MINUTE) < 15_000) await sleep(MINUTE - (Date.now() % MINUTE) + 100);
    const window = Math.floor(Date.now() / MINUTE);
    const client = clientAddress();
    const spent: Answer[] = [];
    for (let i = 0; i < limit; i += 1) spent.push(await viaProxy(context, path, client));
    const through = await viaProxy(context, path, client);
    const forged = await viaProxy(context, path, client, { "X-Forwarded-For": "203.0.113.77" });
    const directly = await Promise.all(
      context.instances.map((origin) => direct(origin, path, client)),
    );
    const other = await viaProxy(context, path, clientAddress());
    if (Math.floor(Date.now() / MINUTE) !== window && attempt < 2) continue;

    const upstreams = new Set(spent.map(upstreamOf));
    context.log(
      `${limit} requests from ${client} through nginx: ${tally(spent, (a) => String(a.status))}, ` +
        `served by ${tally(spent, upstreamOf)}`,
    );
    context.log(
      `then: through nginx ${through.status} (Retry-After ${through.headers["retry-after"]}), ` +
        `with a forged X-Forwarded-For ${forged.status}, ` +
        `directly ${directly.map((a, i) => `${port(context.instances[i] ?? "")}:${a.status}`).join(" ")}; ` +
        `another client ${other.status}`,
    );
    context.check(
      spent.every((answer) => answer.status !== 429),
      "a request within the budget was refused",
    );
    context.check(
      upstreams.size === context.instances.length,
      `the budget was spent on ${upstreams.size} instances, not all ${context.instances.length}`,
    );
    context.check(
      through.status === 429 && Number(through.headers["retry-after"]) > 0,
      `the request after the budget answered ${through.status} through nginx`,
    );
    context.check(
      forged.status === 429,
      `a forged X-Forwarded-For escaped the limit (${forged.status})`,
    );
    directly.forEach((answer, i) =>
      context.check(
        answer.status === 429,
        `instance ${i + 1} answered ${answer.status} after the budget was spent on all`,
      ),
    );
    context.check(other.status !== 429, `another client was refused (${other.status})`);
    return;
  }
}

async function exchange(
  origin: string,
  client: TestClient,
  code: string,
  verifier: string,
  address: string,
) {
  return direct(origin, "/oauth/token", address, {
    method: "POST",
    headers: { ...FORM, ...basicAuth(client.clientId, client.clientSecret) },
    body: formBody({ grant_type: "authorization_code", code, code_verifier: verifier }),
  });
}

const userinfo = (origin: string, key: string, address: string) =>
  direct(origin, "/oauth/userinfo", address, { headers: { Authorization: `Bearer ${key}` } });

/**
 * (b) A key revoked through one instance is refused (401) by the very next
 * request on each other instance, and through the proxy. Once per instance
 * as the one that revokes.
 */
export async function revocationIsImmediate(context: ClusterContext): Promise<void> {
  const client = await createTestClient();
  const address = clientAddress();
  for (const [index, revoker] of context.instances.entries()) {
    const { key } = await mintApiKey(client);
    const before = await Promise.all(
      context.instances.map((origin) => userinfo(origin, key, address)),
    );
    context.check(
      before.every((answer) => answer.status === 200),
      `a fresh key was refused before its revocation: ${before.map((a) => a.status).join(" ")}`,
    );
    const revoked = await direct(revoker, "/oauth/revoke", address, {
      method: "POST",
      headers: { ...FORM, ...basicAuth(client.clientId, client.clientSecret) },
      body: formBody({ token: key }),
    });
    const others = context.instances.filter((origin) => origin !== revoker);
    const after = await Promise.all(others.map((origin) => userinfo(origin, key, address)));
    const reads = await Promise.all(
      others.map((origin) =>
        direct(origin, "/api/accounts", address, { headers: { Authorization: `Bearer ${key}` } }),
      ),
    );
    const proxied = await send(`${context.proxy}/oauth/userinfo`, {
      headers: { Authorization: `Bearer ${key}` },
      from: address,
    });
    context.log(
      `revoked on instance ${index + 1} (${revoked.status}); next request on the others: ` +
        `userinfo ${after.map((a) => a.status).join(" ")}, /api/accounts ${reads.map((a) => a.status).join(" ")}; ` +
        `through nginx ${proxied.status}`,
    );
    context.check(
      revoked.status === 200,
      `revocation on instance ${index + 1} answered ${revoked.status}`,
    );
    for (const answer of [...after, ...reads, proxied]) {
      context.check(
        answer.status === 401,
        `a key revoked on instance ${index + 1} answered ${answer.status}`,
      );
    }
  }
}

/**
 * (c) One code redeemed at the same moment on every instance: exactly one
 * answer carries a key, the others are invalid_grant, one key is stored, and
 * the replays revoke it on every instance (RFC 6749 section 4.1.2).
 */
export async function codeRedeemedOnce(context: ClusterContext, rounds: number): Promise<void> {
  const outcomes: string[] = [];
  for (let round = 0; round < rounds; round += 1) {
    const client = await createTestClient();
    const verifier = newVerifier();
    const { code } = await issueCode(client, verifier);
    const address = clientAddress();
    const answers = await Promise.all(
      context.instances.map((origin) => exchange(origin, client, code, verifier, address)),
    );
    const winners = answers.filter((answer) => answer.status === 200);
    const losers = answers.filter(
      (answer) => answer.status === 400 && answer.body.includes('"invalid_grant"'),
    );
    const stored = await db().apiKey.count({ where: { clientId: client.clientId } });
    outcomes.push(answers.map((answer) => answer.status).join("/"));
    context.check(
      winners.length === 1 && losers.length === answers.length - 1,
      `round ${round + 1}: the parallel redemptions answered ${answers.map((a) => a.status).join(" ")}`,
    );
    context.check(stored === 1, `round ${round + 1}: ${stored} keys stored for one code`);
    const key = winners[0]
      ? (JSON.parse(winners[0].body) as { access_token: string }).access_token
      : "";
    const after = await Promise.all(
      context.instances.map((origin) => userinfo(origin, key, address)),
    );
    context.check(
      after.every((answer) => answer.status === 401),
      `round ${round + 1}: the replayed code's key still answers ${after.map((a) => a.status).join(" ")}`,
    );
  }
  context.log(
    `${rounds} codes, each redeemed on all instances at once: ${outcomes.join(", ")} (one key each, revoked by the replays)`,
  );
}
