import { toS256Challenge } from "../../lib/oauth/pkce";
import { partnerTenantOf, partnerWithRecipientKey } from "../../test/bank-data";
import {
  basicAuthorization,
  issueCode,
  newVerifier,
  type TestClient,
} from "../../test/oauth-fixtures";
import { forwardedFor, Latencies, type HttpAnswer, type HttpClient } from "../lib/load-client";
import { ACCOUNT_UIDS, type LoadBank } from "./bank";

/**
 * The simulated partner and its users, and the five kinds of traffic the
 * run mixes: authorize, token exchange, data reads (accounts and a
 * transactions page) and syncs (one account and bulk).
 */

export interface ConnectedUser {
  key: string;
  accountIds: string[];
}

export interface Population {
  client: TestClient;
  users: ConnectedUser[];
  /** Every key the token endpoint issued during the run (checked at the end). */
  issuedKeys: string[];
  /** Codes ready to exchange, with their verifiers. */
  codes: { code: string; verifier: string }[];
}

export type OperationName =
  "authorize" | "token" | "accounts" | "transactions" | "sync" | "bulk sync";

/** What each operation answers when all is well (anything else is counted as unexpected). */
export const EXPECTED_STATUS: Record<OperationName, number[]> = {
  authorize: [302, 303, 307],
  token: [200],
  accounts: [200],
  transactions: [200],
  sync: [200],
  "bulk sync": [200],
};

/** Weights of the mix (out of 100). */
const MIX: [OperationName, number][] = [
  ["authorize", 20],
  ["token", 15],
  ["accounts", 25],
  ["transactions", 25],
  ["sync", 10],
  ["bulk sync", 5],
];

export interface Tally {
  statuses: Map<number, number>;
  latencies: Latencies;
}

export class Stats {
  readonly byOperation = new Map<OperationName, Tally>();
  readonly unexpected: string[] = [];

  record(operation: OperationName, answer: HttpAnswer, window: string, allowed: number[]) {
    let tally = this.byOperation.get(operation);
    if (!tally) {
      tally = { statuses: new Map(), latencies: new Latencies() };
      this.byOperation.set(operation, tally);
    }
    tally.statuses.set(answer.status, (tally.statuses.get(answer.status) ?? 0) + 1);
    tally.latencies.add(answer.ms);
    if (![...EXPECTED_STATUS[operation], ...allowed].includes(answer.status)) {
      this.unexpected.push(
        `${window}: ${operation} answered ${answer.status} ${answer.body.slice(0, 160)}`,
      );
    }
  }

  count(status: (code: number) => boolean): number {
    let total = 0;
    for (const tally of this.byOperation.values())
      for (const [code, count] of tally.statuses) if (status(code)) total += count;
    return total;
  }
}

const form = (fields: Record<string, string>) => new URLSearchParams(fields).toString();

export async function exchangeCode(
  http: HttpClient,
  client: TestClient,
  code: string,
  verifier: string,
  from: number,
): Promise<HttpAnswer> {
  return http({
    method: "POST",
    path: "/oauth/token",
    headers: {
      "Content-Type": "application/x-www-form-urlencoded",
      Authorization: basicAuthorization(client.clientId, client.clientSecret),
      ...forwardedFor(from),
    },
    body: form({ grant_type: "authorization_code", code, code_verifier: verifier }),
  });
}

/** Mints codes with the library, as consent screens would; the exchange goes over HTTP. */
export async function mintCodes(population: Population, count: number): Promise<void> {
  for (let i = 0; i < count; i += 1) {
    const verifier = newVerifier();
    const { code } = await issueCode(population.client, verifier);
    population.codes.push({ code, verifier });
  }
}

/** A partner with a recipient key and `count` users who connected the load bank. */
export async function setUpPopulation(
  http: HttpClient,
  bank: LoadBank,
  count: number,
): Promise<Population> {
  const { client, keys } = await partnerWithRecipientKey();
  const population: Population = { client, users: [], issuedKeys: [], codes: [] };
  for (let i = 0; i < count; i += 1) {
    const verifier = newVerifier();
    const { code, user } = await issueCode(client, verifier);
    const answer = await exchangeCode(http, client, code, verifier, i);
    if (answer.status !== 200) throw new Error(`token exchange failed: ${answer.body}`);
    const key = (JSON.parse(answer.body) as { access_token: string }).access_token;
    const tenant = await partnerTenantOf(client, user);
    const { accountIds } = await bank.connect(tenant.id, keys.publicKeyRawB64);
    population.users.push({ key, accountIds });
    population.issuedKeys.push(key);
  }
  return population;
}

function pick(random: () => number): OperationName {
  let roll = random() * 100;
  for (const [name, weight] of MIX) {
    roll -= weight;
    if (roll < 0) return name;
  }
  return "accounts";
}

/** One request of the mix. Token exchanges refused by an outage keep their code for later. */
export async function oneRequest(
  http: HttpClient,
  population: Population,
  stats: Stats,
  options: { window: string; allowed: number[]; random: () => number; sequence: number },
): Promise<void> {
  const { random, sequence } = options;
  const user = population.users[Math.floor(random() * population.users.length)];
  if (!user) throw new Error("no users");
  const accountIndex = Math.floor(random() * ACCOUNT_UIDS.length);
  const accountId = user.accountIds[accountIndex] ?? "";
  const uid = ACCOUNT_UIDS[accountIndex] ?? "";
  const bearer = { Authorization: `Bearer ${user.key}`, ...forwardedFor(sequence) };
  const json = { ...bearer, "Content-Type": "application/json" };
  let operation = pick(random);
  if (operation === "token" && population.codes.length === 0) operation = "authorize";

  let answer: HttpAnswer;
  switch (operation) {
    case "authorize": {
      const query = new URLSearchParams({
        client_id: population.client.clientId,
        redirect_uri: population.client.redirectUri,
        response_type: "code",
        state: `s${sequence}`,
        code_challenge: toS256Challenge(newVerifier()),
        code_challenge_method: "S256",
      });
      answer = await http({ path: `/oauth/authorize?${query}`, headers: forwardedFor(sequence) });
      break;
    }
    case "token": {
      const minted = population.codes.pop();
      if (!minted) return;
      answer = await exchangeCode(http, population.client, minted.code, minted.verifier, sequence);
      if (answer.status === 200) {
        population.issuedKeys.push(
          (JSON.parse(answer.body) as { access_token: string }).access_token,
        );
      } else if (answer.status === 503) {
        population.codes.unshift(minted);
      }
      break;
    }
    case "accounts":
      answer = await http({ path: "/api/accounts", headers: bearer });
      break;
    case "transactions":
      answer = await http({
        path: `/api/accounts/${accountId}/transactions?limit=50&offset=${Math.floor(random() * 60)}`,
        headers: bearer,
      });
      break;
    case "sync":
      answer = await http({
        method: "POST",
        path: `/api/accounts/${accountId}/sync`,
        headers: json,
        body: JSON.stringify({ uid }),
      });
      break;
    case "bulk sync":
      answer = await http({
        method: "POST",
        path: "/api/sync",
        headers: json,
        body: JSON.stringify({
          items: user.accountIds.map((id, index) => ({ accountId: id, uid: ACCOUNT_UIDS[index] })),
        }),
      });
      break;
  }
  stats.record(operation, answer, options.window, options.allowed);
}
