import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openJson } from "../crypto/envelope";
import { db } from "../db/client";
import { setSetting } from "../env";
import { settleIngests } from "../flow/bank-ingest";
import { handleBankCallback, handleBankStart } from "../flow/banks";
import { csrfToken } from "../flow/csrf";
import { attachUser } from "../flow/flows";
import { tenantSubject } from "../banking/tenants";
import { partnerTenantOf, partnerWithRecipientKey } from "../../test/bank-data";
import {
  FAKE_AUTHORIZATION_CODE,
  startFakeEnableBanking,
  type FakeEnableBanking,
  applicationKeyPair,
} from "../../test/fake-enable-banking";
import { ISSUER, mintApiKey, signedInCookie, startTestFlow } from "../../test/oauth-fixtures";
import { startServiceServer, type RunningServiceServer } from "../../test/service-server";

/**
 * The PSU headers a bank requires (Enable Banking `required_psu_headers`), end
 * to end: the consent is started and stored through the bank picker with
 * Enable Banking as the upstream (the local fake, over HTTP), and the partner
 * syncs through the service's own HTTP server (/docs/sync).
 */

const APPLICATION_ID = "app-psu-headers";
const BANK = { name: "Geo Bank", country: "FI" };
const GEO_BANK_HEADERS = ["psu-ip-address", "psu-user-agent", "psu-geo-location"];
const keys = applicationKeyPair();

const PRESENT = { "X-Psu-Ip-Address": "91.152.10.20", "X-Psu-User-Agent": "Mozilla/5.0 (X11)" };
const AT_HELSINKI = { ...PRESENT, "X-Psu-Geo-Location": "GEO:60.1699;24.9384" };

let fake: FakeEnableBanking;
let server: RunningServiceServer;

function bankTransactions(uid: string) {
  return [
    {
      entry_reference: `${uid}-1`,
      transaction_amount: { amount: "12.50", currency: "EUR" },
      credit_debit_indicator: "DBIT",
      status: "BOOK",
      booking_date: new Date().toISOString().slice(0, 10),
      remittance_information: ["Groceries"],
    },
  ];
}

beforeAll(async () => {
  fake = await startFakeEnableBanking({ applicationId: APPLICATION_ID, publicKey: keys.publicKey });
  fake.aspsps = [
    {
      ...BANK,
      psu_types: ["personal"],
      maximum_consent_validity: 90 * 86_400,
      required_psu_headers: GEO_BANK_HEADERS,
    },
    { name: "Plain Bank", country: "FI", psu_types: ["personal"] },
  ];
  const uids = ["geo-acc-1", "geo-acc-2"];
  fake.session = {
    session_id: "sess-geo",
    aspsp: BANK,
    psu_type: "personal",
    access: { valid_until: new Date(Date.now() + 90 * 86_400_000).toISOString() },
    accounts: uids.map((uid, index) => ({
      uid,
      currency: "EUR",
      cash_account_type: "CACC",
      account_id: { iban: index === 0 ? "FI2112345600000785" : "FI5544400000012345" },
      name: "Maija Meikäläinen",
    })),
  };
  for (const uid of uids) {
    fake.balances[uid] = [
      { balance_amount: { amount: "100.00", currency: "EUR" }, balance_type: "ITBD" },
    ];
    fake.transactionPages[uid] = [{ transactions: bankTransactions(uid), continuation_key: null }];
  }
  setSetting("UPSTREAM", "enablebanking");
  setSetting("ENABLE_BANKING_API_URL", fake.url);
  setSetting("ENABLE_BANKING_APPLICATION_ID", APPLICATION_ID);
  setSetting("ENABLE_BANKING_PRIVATE_KEY", keys.privateKey);
  server = await startServiceServer();
});

afterAll(async () => {
  await server.close();
  await fake.close();
  setSetting("UPSTREAM", "");
});

/** A partner's user who picks `bank` in the flow and approves it at the (fake) bank. */
async function connectThroughFlow(bank: { name: string; country: string }) {
  const { client, keys: partnerKeys } = await partnerWithRecipientKey();
  const { key, user } = await mintApiKey(client);
  const tenant = await partnerTenantOf(client, user);
  const { flowId, setCookie } = await startTestFlow(client, { state: "s-psu" });
  const subject = tenantSubject(client.partnerId, user);
  const person = await db().user.findUniqueOrThrow({ where: { id: user.id } });
  await attachUser({ id: flowId, renewConnectionId: null }, person, "partner", subject);
  const flow = await db().flow.findUniqueOrThrow({ where: { id: flowId } });
  const cookie = `${setCookie.split(";")[0] ?? ""}; ${await signedInCookie(user.id)}`;

  const started = await handleBankStart(
    new Request(`${ISSUER}/banks/start`, {
      method: "POST",
      headers: {
        "Content-Type": "application/x-www-form-urlencoded",
        Origin: ISSUER,
        Cookie: cookie,
      },
      body: new URLSearchParams({
        csrf: csrfToken(flow, "bank"),
        bank: bank.name,
        country: bank.country,
        psuType: "personal",
      }).toString(),
    }),
  );
  expect(started.headers.get("location")).toMatch(new RegExp(`^${fake.url}/bank/authorize`));
  const auth = fake.requests.findLast((request) => request.path === "/auth");
  const state = (auth?.body as { state: string }).state;
  const back = new URL(`${ISSUER}/banks/callback`);
  back.searchParams.set("code", FAKE_AUTHORIZATION_CODE);
  back.searchParams.set("state", state);
  await handleBankCallback(new Request(back, { headers: { Cookie: cookie } }));
  await settleIngests();
  const connection = await db().connection.findFirstOrThrow({ where: { tenantId: tenant.id } });
  return { key, partnerKeys, connection };
}

type Connected = Awaited<ReturnType<typeof connectThroughFlow>>;

async function accountsOf(partner: Connected) {
  const response = await fetch(`${server.origin}/api/accounts`, {
    headers: { "X-Api-Key": partner.key },
  });
  const listed = (await response.json()) as { id: string; uidEnc: string }[];
  return listed.map((account) => ({
    id: account.id,
    uid: openJson<{ uid: string }>(partner.partnerKeys.privateKeyPkcs8B64, account.uidEnc).uid,
  }));
}

function sync(key: string, path: string, body: unknown, headers: Record<string, string> = {}) {
  return fetch(`${server.origin}${path}`, {
    method: "POST",
    headers: { "X-Api-Key": key, "Content-Type": "application/json", ...headers },
    body: JSON.stringify(body),
  });
}

const syncOne = (
  partner: Connected,
  account: { id: string; uid: string },
  headers?: Record<string, string>,
) => sync(partner.key, `/api/accounts/${account.id}/sync`, { uid: account.uid }, headers);

/** The bank reads (balances, transactions) the fake received since `from`. */
const readsSince = (from: number) =>
  fake.requests.slice(from).filter((request) => request.path.startsWith("/accounts/"));

describe("a bank that requires PSU headers (Enable Banking required_psu_headers)", () => {
  let partner: Connected;
  let account: { id: string; uid: string };
  beforeAll(async () => {
    partner = await connectThroughFlow(BANK);
    const [first] = await accountsOf(partner);
    if (!first) throw new Error("no account");
    account = first;
  });

  it("records the bank's required headers on the connection when the consent is stored", () => {
    expect(partner.connection.requiredPsuHeaders).toBe(GEO_BANK_HEADERS.join(","));
  });

  it("refuses a sync with the holder present but without a required header, before asking the bank", async () => {
    const from = fake.requests.length;
    const response = await syncOne(partner, account, PRESENT);
    expect(response.status).toBe(409);
    expect(await response.json()).toEqual({
      status: 409,
      reason: "psu_headers_missing",
      missingPsuHeaders: ["X-Psu-Geo-Location"],
    });
    expect(readsSince(from)).toEqual([]);
  });

  it("drops a geo-location that is not GEO:<lat>;<long>, which then counts as missing", async () => {
    for (const location of ["60.1699,24.9384", "GEO:91;24.9", "GEO:60.1;181", "GEO:a;b"]) {
      const response = await syncOne(partner, account, {
        ...PRESENT,
        "X-Psu-Geo-Location": location,
      });
      expect(await response.json()).toMatchObject({
        reason: "psu_headers_missing",
        missingPsuHeaders: ["X-Psu-Geo-Location"],
      });
    }
  });

  it("forwards X-Psu-Geo-Location as Psu-Geo-Location with the other PSU headers", async () => {
    const from = fake.requests.length;
    const response = await syncOne(partner, account, {
      ...AT_HELSINKI,
      "X-Psu-Geo-Location": "geo:60.1699;24.9384",
    });
    expect(response.status).toBe(200);
    const reads = readsSince(from);
    expect(reads.length).toBeGreaterThanOrEqual(2);
    for (const read of reads) {
      expect(read.headers).toMatchObject({
        "psu-ip-address": "91.152.10.20",
        "psu-user-agent": "Mozilla/5.0 (X11)",
        "psu-geo-location": "GEO:60.1699;24.9384",
      });
    }
  });

  it("serves a background sync, which carries no PSU header", async () => {
    const from = fake.requests.length;
    const response = await syncOne(partner, account);
    expect(response.status).toBe(200);
    for (const read of readsSince(from)) {
      expect(Object.keys(read.headers).filter((name) => name.startsWith("psu-"))).toEqual([]);
    }
  });

  it("forwards the geo-location only with a public IP address and a user agent", async () => {
    const from = fake.requests.length;
    const response = await syncOne(partner, account, {
      ...AT_HELSINKI,
      "X-Psu-Ip-Address": "10.0.0.7",
    });
    // Nothing is forwarded: a background read, which the bank serves.
    expect(response.status).toBe(200);
    for (const read of readsSince(from)) expect(read.headers["psu-geo-location"]).toBeUndefined();
  });

  it("answers the bank's PSU_HEADER_NOT_PROVIDED with the missing headers and the bank's code", async () => {
    // A connection stored before the service recorded what its bank requires.
    await db().connection.update({
      where: { id: partner.connection.id },
      data: { requiredPsuHeaders: null },
    });
    const from = fake.requests.length;
    const response = await syncOne(partner, account, PRESENT);
    expect(response.status).toBe(409);
    expect(await response.json()).toEqual({
      status: 409,
      reason: "psu_headers_missing",
      bankErrorCode: "PSU_HEADER_NOT_PROVIDED",
      missingPsuHeaders: ["X-Psu-Geo-Location"],
    });
    // The bank was asked and refused; what it requires is recorded from its bank list.
    expect(readsSince(from).length).toBeGreaterThan(0);
    const connection = await db().connection.findUniqueOrThrow({
      where: { id: partner.connection.id },
    });
    expect(connection.requiredPsuHeaders).toBe(GEO_BANK_HEADERS.join(","));
  });

  it("answers psu_present_required, naming what to send, when the bank refuses a background read", async () => {
    // A bank that shares data only with the holder present refuses a read without PSU headers.
    const refusal = {
      status: 400,
      body: { code: 400, message: "PSU headers required", error: "PSU_HEADER_NOT_PROVIDED" },
    };
    fake.script.push(refusal, refusal);
    const response = await syncOne(partner, account);
    expect(response.status).toBe(409);
    expect(await response.json()).toEqual({
      status: 409,
      reason: "psu_present_required",
      bankErrorCode: "PSU_HEADER_NOT_PROVIDED",
      missingPsuHeaders: ["X-Psu-Ip-Address", "X-Psu-User-Agent", "X-Psu-Geo-Location"],
    });
  });

  it("lists the same reason per account in a bulk sync", async () => {
    const accounts = await accountsOf(partner);
    const items = accounts.map((one) => ({ accountId: one.id, uid: one.uid }));
    const response = await sync(partner.key, "/api/sync", { items }, PRESENT);
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({
      accounts: 0,
      newTransactions: 0,
      failures: accounts.map((one) => ({
        accountId: one.id,
        reason: "psu_headers_missing",
        bankErrorCode: null,
        missingPsuHeaders: ["X-Psu-Geo-Location"],
      })),
    });
    const ok = await sync(partner.key, "/api/sync", { items }, AT_HELSINKI);
    expect(await ok.json()).toMatchObject({ accounts: accounts.length, failures: [] });
  });
});

describe("a bank that requires no PSU headers", () => {
  it("records none, and syncs with the holder present or not", async () => {
    fake.session = { ...fake.session, aspsp: { name: "Plain Bank", country: "FI" } };
    const partner = await connectThroughFlow({ name: "Plain Bank", country: "FI" });
    expect(partner.connection.requiredPsuHeaders).toBe("");
    const [account] = await accountsOf(partner);
    if (!account) throw new Error("no account");
    expect((await syncOne(partner, account, PRESENT)).status).toBe(200);
    expect((await syncOne(partner, account)).status).toBe(200);
  });
});
