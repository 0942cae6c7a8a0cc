import { loginNonceCookieName } from "../../../lib/auth/login-challenges";
import { sessionCookieName } from "../../../lib/auth/sessions";
import { getEnv } from "../../../lib/env";
import { findLastMessage } from "../../../lib/mail";
import { partnerTenantOf } from "../../../test/bank-data";
import { issueCode, newVerifier, uniqueEmail } from "../../../test/oauth-fixtures";
import {
  forwardedFor,
  httpClient,
  Latencies,
  sleep,
  type HttpAnswer,
  type HttpClient,
} from "../../lib/load-client";
import type { LoadBank } from "../bank";
import { exchangeCode, type Population } from "../traffic";

/**
 * The connection-pool attack: N bulk syncs of big accounts fired at once
 * against the running service and, while they seal and write, M sign-in PIN
 * posts and M token exchanges at once (after the same sign-ins and
 * exchanges without syncs, for comparison). Prints each endpoint's statuses and the sign-in latencies,
 * and fails the run on any 5xx that is not a 503 with Retry-After, and on
 * any sign-in that was refused while the syncs ran (syncs have a budget of
 * their own and must never starve sign-in; docs/capacity.md).
 */

export interface PoolPressureOptions {
  bulkSyncs: number;
  signIns: number;
  tokenExchanges: number;
  /** Transactions of each big account (all new on the attack's first sync). */
  bigTransactions: number;
}

type Check = (ok: boolean, message: string) => void;

const BIG_UID = "load-big-1";
const PAGE_SIZE = 500;
/** Sign-in posts come from addresses of their own (198.18.200.x). */
const SIGN_IN_ADDRESS_BASE = 200 * 256;

function bigPages(count: number) {
  const pages = Math.max(1, Math.ceil(count / PAGE_SIZE));
  return Array.from({ length: pages }, (_, page) => ({
    transactions: Array.from({ length: Math.min(PAGE_SIZE, count - page * PAGE_SIZE) }, (_, i) => ({
      entry_reference: `${BIG_UID}-${page}-${i}`,
      transaction_amount: { amount: (3 + (i % 97) * 0.85).toFixed(2), currency: "EUR" },
      credit_debit_indicator: i % 7 === 0 ? "CRDT" : "DBIT",
      status: "BOOK",
      booking_date: `2026-10-${String(1 + (i % 28)).padStart(2, "0")}`,
      remittance_information: [`Card purchase ${page}-${i}, terminal 4711, Helsinki`],
      creditor: { name: "Market Hall" },
    })),
    continuation_key: page < pages - 1 ? `${BIG_UID}-ck-${page + 1}` : null,
  }));
}

/** Users with one big account each, connected while the account was still small. */
async function bigAccountUsers(
  http: HttpClient,
  bank: LoadBank,
  population: Population,
  count: number,
) {
  const { fake } = bank;
  const usual = fake.session;
  fake.session = {
    ...usual,
    session_id: "load-big-session",
    accounts: [{ uid: BIG_UID, currency: "EUR", cash_account_type: "CACC", name: "Shop account" }],
  };
  fake.balances[BIG_UID] = [
    { balance_amount: { amount: "25000.00", currency: "EUR" }, balance_type: "ITBD" },
  ];
  fake.transactionPages[BIG_UID] = bigPages(1);
  const users: { key: string; accountId: string }[] = [];
  try {
    for (let i = 0; i < count; i += 1) {
      const verifier = newVerifier();
      const { code, user } = await issueCode(population.client, verifier);
      const answer = await exchangeCode(http, population.client, code, verifier, 7_000 + i);
      if (answer.status !== 200) throw new Error(`token exchange failed: ${answer.body}`);
      const key = (JSON.parse(answer.body) as { access_token: string }).access_token;
      population.issuedKeys.push(key);
      const tenant = await partnerTenantOf(population.client, user);
      const { accountIds } = await bank.connect(tenant.id, tenant.sealingKey ?? "");
      users.push({ key, accountId: accountIds[0] ?? "" });
    }
  } finally {
    fake.session = usual;
  }
  return users;
}

/** A browser that asked for a sign-in mail: its nonce cookie and the mailed PIN. */
async function requestSignIn(http: HttpClient, index: number) {
  const email = uniqueEmail("pressure");
  const answer = await http({
    method: "POST",
    path: "/login/request",
    headers: {
      Origin: new URL(getEnv().issuer).origin,
      "Content-Type": "application/x-www-form-urlencoded",
      ...forwardedFor(SIGN_IN_ADDRESS_BASE + index),
    },
    body: new URLSearchParams({ email }).toString(),
  });
  const setCookies = [answer.headers["set-cookie"] ?? []].flat();
  const nonce = setCookies.find((cookie) => cookie.startsWith(`${loginNonceCookieName()}=`));
  const pin = (await findLastMessage(email))?.code;
  if (answer.status !== 303 || !nonce || !pin) {
    throw new Error(`sign-in request failed: ${answer.status} ${answer.body.slice(0, 100)}`);
  }
  return { email, pin, cookie: nonce.split(";")[0] ?? "", index };
}

/** Signed in: a 303 that sets the session cookie and goes neither back to /login nor to /error. */
function signedIn(answer: HttpAnswer): boolean {
  const location = answer.headers.location ?? "";
  const cookies = [answer.headers["set-cookie"] ?? []].flat();
  return (
    answer.status === 303 &&
    !/\/(login|error)\b/.test(location) &&
    cookies.some((cookie) => cookie.startsWith(`${sessionCookieName()}=`))
  );
}

class Tally {
  readonly statuses = new Map<string, number>();
  add(label: string) {
    this.statuses.set(label, (this.statuses.get(label) ?? 0) + 1);
  }
  toString() {
    return [...this.statuses].map(([label, count]) => `${label}×${count}`).join(" ");
  }
}

/** 5xx other than a 503 with an integer Retry-After. */
const undocumented5xx = (answer: HttpAnswer) =>
  answer.status >= 500 &&
  !(answer.status === 503 && /^\d+$/.test(String(answer.headers["retry-after"] ?? "")));

interface Wave {
  browsers: Awaited<ReturnType<typeof requestSignIn>>[];
  codes: { code: string; verifier: string }[];
}

/** `signIns` browsers waiting to post their PIN and `tokenExchanges` codes to exchange. */
async function prepareWave(
  http: HttpClient,
  population: Population,
  counts: { signIns: number; tokenExchanges: number; firstAddress: number },
): Promise<Wave> {
  const browsers = [];
  for (let i = 0; i < counts.signIns; i += 1) {
    browsers.push(await requestSignIn(http, counts.firstAddress + i));
  }
  const codes = [];
  for (let i = 0; i < counts.tokenExchanges; i += 1) {
    const verifier = newVerifier();
    codes.push({ verifier, code: (await issueCode(population.client, verifier)).code });
  }
  return { browsers, codes };
}

interface WaveResult {
  pins: Tally;
  tokens: Tally;
  signInLatencies: Latencies;
  /** Sign-ins answered while `running()` said syncs were still in flight. */
  duringSyncs: number;
}

/** Posts every PIN and exchanges every code at once. */
async function fireWave(
  http: HttpClient,
  population: Population,
  wave: Wave,
  options: { check: Check; running: () => boolean },
): Promise<WaveResult> {
  const { check } = options;
  const result: WaveResult = {
    pins: new Tally(),
    tokens: new Tally(),
    signInLatencies: new Latencies(),
    duringSyncs: 0,
  };
  const pins = wave.browsers.map(async (browser) => {
    const answer = await http({
      method: "POST",
      path: "/login/code",
      headers: {
        Origin: new URL(getEnv().issuer).origin,
        "Content-Type": "application/x-www-form-urlencoded",
        Cookie: browser.cookie,
        ...forwardedFor(SIGN_IN_ADDRESS_BASE + browser.index),
      },
      body: new URLSearchParams({ email: browser.email, code: browser.pin }).toString(),
    });
    result.signInLatencies.add(answer.ms);
    if (options.running()) result.duringSyncs += 1;
    const ok = signedIn(answer);
    result.pins.add(ok ? "303 signed in" : `${answer.status} ${answer.headers.location}`);
    check(ok, `a sign-in was refused under pressure: ${answer.status} ${answer.headers.location}`);
  });
  const tokens = wave.codes.map(async ({ code, verifier }, i) => {
    const answer = await exchangeCode(http, population.client, code, verifier, 7_600 + i);
    if (answer.status === 200) {
      population.issuedKeys.push(
        (JSON.parse(answer.body) as { access_token: string }).access_token,
      );
    }
    result.tokens.add(String(answer.status));
    check(
      answer.status === 200 || !undocumented5xx(answer),
      `token exchange: ${answer.status} ${answer.body.slice(0, 120)}`,
    );
  });
  await Promise.all([...pins, ...tokens]);
  return result;
}

const latencies = (result: WaveResult) =>
  `sign-in p50 ${result.signInLatencies.percentile(50).toFixed(0)} ms, ` +
  `p99 ${result.signInLatencies.percentile(99).toFixed(0)} ms`;

export async function poolPressure(
  origin: string,
  bank: LoadBank,
  population: Population,
  options: PoolPressureOptions,
  check: Check,
): Promise<void> {
  const { bulkSyncs, signIns, tokenExchanges, bigTransactions } = options;
  const http = httpClient(origin, bulkSyncs + signIns + tokenExchanges + 8);
  const users = await bigAccountUsers(http, bank, population, bulkSyncs);
  const counts = { signIns, tokenExchanges };
  const quiet = await prepareWave(http, population, { ...counts, firstAddress: 0 });
  const loud = await prepareWave(http, population, { ...counts, firstAddress: signIns });
  bank.fake.transactionPages[BIG_UID] = bigPages(bigTransactions);

  // The same sign-ins and exchanges without syncs first: what the syncs cost them.
  const baseline = await fireWave(http, population, quiet, { check, running: () => false });
  console.log(
    `  without syncs: ${signIns} PIN posts and ${tokenExchanges} token exchanges at once: ${latencies(baseline)}`,
  );
  console.log(
    `  ${bulkSyncs} bulk syncs of ${bigTransactions}-transaction accounts, ` +
      `and, once a sync has all its pages, ${signIns} PIN posts and ${tokenExchanges} token exchanges at once:`,
  );
  const syncTally = new Tally();
  let syncsRunning = bulkSyncs;
  const started = Date.now();
  const pagesBefore = bank.fake.requests.length;
  const syncs = users.map(async (user) => {
    const answer = await http({
      method: "POST",
      path: "/api/sync",
      headers: {
        Authorization: `Bearer ${user.key}`,
        "Content-Type": "application/json",
        ...forwardedFor(7_500),
      },
      body: JSON.stringify({ items: [{ accountId: user.accountId, uid: BIG_UID }] }),
    });
    syncsRunning -= 1;
    const body = answer.body.slice(0, 120);
    const reason =
      answer.status === 503 ? ` ${(JSON.parse(answer.body) as { reason?: string }).reason}` : "";
    syncTally.add(`${answer.status}${reason}`);
    check([200, 503].includes(answer.status), `bulk sync answered ${answer.status}: ${body}`);
    check(!undocumented5xx(answer), `bulk sync: ${answer.status} without Retry-After: ${body}`);
  });
  // The sign-ins go in once a sync has all its pages: while the syncs seal and write.
  const pages = bigPages(bigTransactions).length;
  const path = `/accounts/${BIG_UID}/transactions`;
  while (
    syncsRunning > 0 &&
    bank.fake.requests.slice(pagesBefore).filter((request) => request.path === path).length < pages
  ) {
    await sleep(10);
  }
  const [attacked] = await Promise.all([
    fireWave(http, population, loud, { check, running: () => syncsRunning > 0 }),
    ...syncs,
  ]);
  const syncSeconds = ((Date.now() - started) / 1000).toFixed(1);

  console.log(`    bulk sync  ${syncTally}`);
  console.log(`    PIN post   ${attacked.pins}`);
  console.log(`    token      ${attacked.tokens}`);
  console.log(
    `    ${latencies(attacked)}; ${attacked.duringSyncs} of ${signIns} answered while syncs ran; ` +
      `the syncs took ${syncSeconds} s`,
  );
}
