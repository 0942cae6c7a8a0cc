import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import {
  balancesOfTwoSources,
  CARD_PURCHASE_CODE,
  EXCHANGE_RATE_SHAPES,
  FAKE_AUTHORIZATION_CODE,
  startFakeEnableBanking,
  type FakeEnableBanking,
  applicationKeyPair,
} from "../../../test/fake-enable-banking";
import { UpstreamError, type Upstream, type UpstreamTransaction } from "../types";
import { enableBankingUpstream } from "./index";

const APPLICATION_ID = "app-connector";
const keys = applicationKeyPair();
let fake: FakeEnableBanking;
let upstream: Upstream;

const ASPSPS = [
  {
    name: "Nordea",
    country: "FI",
    bic: "NDEAFIHH",
    logo: "https://enablebanking.com/brands/FI/Nordea/",
    psu_types: ["personal", "business"],
    maximum_consent_validity: 180 * 86_400,
    auth_methods: [{ name: "redirect", approach: "REDIRECT" }],
  },
  {
    name: "Danske Bank",
    country: "DK",
    bic: "DABADKKK",
    beta: true,
    psu_types: ["business", "corporate"],
    maximum_consent_validity: 90 * 86_400 + 3_600,
    required_psu_headers: [
      "psu-ip-address",
      " PSU-User-Agent",
      "psu-geo-location",
      7,
      "not a header",
    ],
  },
  { name: "Tiny Bank", country: "dk", psu_types: ["personal"] },
];

const SESSION = {
  session_id: "sess-4f2a",
  aspsp: { name: "Nordea", country: "FI" },
  psu_type: "personal",
  access: { valid_until: "2027-05-20T10:03:30.128417+00:00" },
  accounts: [
    {
      uid: "acc-1",
      identification_hash: "hash-1",
      currency: "EUR",
      cash_account_type: "CACC",
      account_id: { iban: "FI2112345600000785" },
      all_account_ids: [{ identification: "12345600000785", scheme_name: "BBAN" }],
      account_servicer: { bic_fi: "NDEAFIHH" },
      name: "Matti Meikäläinen",
      details: "Household",
      product: "Nordea Current Account",
      usage: "PRIV",
    },
    {
      uid: "acc-2",
      currency: "eur",
      cash_account_type: "SVGS",
      account_id: { other: { identification: "99887766", scheme_name: "BBAN" } },
      name: null,
      product: "Savings Plus",
    },
    // Listed by the bank but not readable through the session: left out.
    { uid: null, currency: "EUR", name: "Not shared" },
  ],
};

const FULL_TRANSACTION = {
  entry_reference: "E1",
  transaction_id: "T1",
  transaction_amount: { amount: "12.50", currency: "EUR" },
  creditor: { name: "K-Market" },
  creditor_account: { iban: "FI5544400000012345" },
  creditor_agent: { bic_fi: "OKOYFIHH" },
  debtor: { name: "Matti Meikäläinen" },
  debtor_account: { other: { identification: "12345600000785", scheme_name: "BBAN" } },
  debtor_agent: { bic_fi: "NDEAFIHH" },
  bank_transaction_code: { domain: "PMNT", code: "ICDT", sub_code: "ESCT" },
  credit_debit_indicator: "DBIT",
  status: "BOOK",
  booking_date: "2026-11-20",
  value_date: "2026-11-20",
  transaction_date: "2026-11-19",
  balance_after_transaction: { amount: "987.50", currency: "EUR" },
  reference_number: "RF18539007547034",
  remittance_information: ["Groceries", "Card 1234"],
  note: "Weekly shop",
  merchant_category_code: "5411",
  exchange_rate: { unit_currency: "EUR", exchange_rate: "1.0", rate_type: "SPOT" },
};
const SALARY = {
  transaction_id: "T2",
  transaction_amount: { amount: "+2500.00", currency: "EUR" },
  credit_debit_indicator: "CRDT",
  status: "PDNG",
  value_date: "2026-11-21",
  bank_transaction_code: { code: "RCDT", description: "Received credit transfer" },
  remittance_information: "Salary November",
};
const COFFEE = {
  transaction_amount: { amount: "-4.20", currency: "EUR" },
  booking_date: "2026-11-18T00:00:00",
  bank_transaction_code: "PMNT-CCRD-POSD",
  remittance_information: ["Café"],
};
const PAGES = [
  { transactions: [FULL_TRANSACTION, SALARY, COFFEE, COFFEE], continuation_key: "ck-2" },
  {
    transactions: [
      { ...COFFEE, entry_reference: "E4", status: "HOLD" },
      { ...COFFEE, entry_reference: "E5", status: "CNCL" },
    ],
    continuation_key: "ck-3",
  },
  { transactions: [{ ...COFFEE, entry_reference: "E7", status: "BOOK" }], continuation_key: "" },
];

beforeAll(async () => {
  fake = await startFakeEnableBanking({ applicationId: APPLICATION_ID, publicKey: keys.publicKey });
  upstream = enableBankingUpstream({
    apiUrl: `${fake.url}/`,
    applicationId: APPLICATION_ID,
    privateKey: keys.privateKey,
  });
});
afterAll(() => fake.close());
beforeEach(() => {
  fake.requests.length = 0;
  fake.script.length = 0;
  fake.closedSessions.clear();
  fake.applicationActive = true;
  fake.aspsps = ASPSPS;
  fake.session = SESSION;
  fake.balances = {
    "acc-1": [
      {
        name: "Booked",
        balance_amount: { amount: "987.50", currency: "EUR" },
        balance_type: "ITBD",
        reference_date: "2026-11-21",
        last_change_date_time: "2026-11-21T08:00:00+00:00",
      },
      { balance_amount: { amount: "+1000.00", currency: "eur" }, balance_type: "ITAV" },
      { balance_amount: { amount: "-12.00", currency: "EUR" }, balance_type: null },
    ],
    "acc/2 x": [],
  };
  fake.transactionPages = { "acc-1": PAGES };
});

const lastRequest = () => fake.requests[fake.requests.length - 1];

describe("listBanks", () => {
  it("maps every ASPSP, days rounded down, unknown PSU types and missing values handled", async () => {
    expect(await upstream.listBanks()).toEqual([
      {
        name: "Nordea",
        country: "FI",
        bic: "NDEAFIHH",
        logo: "https://enablebanking.com/brands/FI/Nordea/",
        beta: false,
        psuTypes: ["personal", "business"],
        maxConsentDays: 180,
        requiredPsuHeaders: [],
      },
      {
        name: "Danske Bank",
        country: "DK",
        bic: "DABADKKK",
        logo: null,
        beta: true,
        psuTypes: ["business"],
        maxConsentDays: 90,
        // Lower case, trimmed; what is not a header name is left out.
        requiredPsuHeaders: ["psu-ip-address", "psu-user-agent", "psu-geo-location"],
      },
      {
        name: "Tiny Bank",
        country: "DK",
        bic: null,
        logo: null,
        beta: false,
        psuTypes: ["personal"],
        maxConsentDays: 90,
        requiredPsuHeaders: [],
      },
    ]);
    expect(lastRequest()?.path).toBe("/aspsps");
    expect(lastRequest()?.query).toEqual({});
  });

  it("asks for one country, upper case", async () => {
    const banks = await upstream.listBanks({ country: "fi" });
    expect(lastRequest()?.query).toEqual({ country: "FI" });
    expect(banks.map((bank) => bank.name)).toEqual(["Nordea"]);
  });
});

describe("authorization → session", () => {
  it("starts the consent with Enable Banking's body and returns its URL", async () => {
    const started = await upstream.startAuthorization({
      aspsp: { name: "Nordea", country: "FI" },
      psuType: "personal",
      redirectUrl: "http://localhost:3000/banks/callback",
      state: "st-1",
      validUntil: new Date("2027-05-20T10:00:00Z"),
      language: "fi",
    });
    const request = lastRequest();
    expect(request?.method).toBe("POST");
    expect(request?.path).toBe("/auth");
    expect(request?.headers["content-type"]).toBe("application/json");
    expect(request?.body).toEqual({
      access: { valid_until: "2027-05-20T10:00:00.000Z" },
      aspsp: { name: "Nordea", country: "FI" },
      state: "st-1",
      redirect_url: "http://localhost:3000/banks/callback",
      psu_type: "personal",
      language: "fi",
    });
    expect(started.authorizationId).toMatch(/^[0-9a-f-]{36}$/);
    expect(started.url).toBe(
      `${fake.url}/bank/authorize?authorization_id=${started.authorizationId}`,
    );
  });

  it("exchanges the code for the session and its readable accounts", async () => {
    const session = await upstream.completeAuthorization({ code: FAKE_AUTHORIZATION_CODE });
    expect(lastRequest()?.body).toEqual({ code: FAKE_AUTHORIZATION_CODE });
    expect(session).toEqual({
      sessionId: "sess-4f2a",
      aspsp: { name: "Nordea", country: "FI" },
      psuType: "personal",
      validUntil: new Date("2027-05-20T10:03:30.128Z"),
      accounts: [
        {
          uid: "acc-1",
          currency: "EUR",
          accountType: "CACC",
          bic: "NDEAFIHH",
          ownerName: "Matti Meikäläinen",
          iban: "FI2112345600000785",
          bban: "12345600000785",
          accountName: "Household",
          product: "Nordea Current Account",
          displayName: null,
        },
        {
          uid: "acc-2",
          currency: "EUR",
          accountType: "SVGS",
          bic: null,
          ownerName: null,
          iban: null,
          bban: "99887766",
          accountName: "Savings Plus",
          product: "Savings Plus",
          displayName: null,
        },
      ],
    });
  });

  it("a wrong code is the bank's error, with its code", async () => {
    const error = await upstream.completeAuthorization({ code: "nope" }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UpstreamError);
    expect((error as UpstreamError).reason).toBe("bank_error");
    expect((error as UpstreamError).bankErrorCode).toBe("WRONG_AUTHORIZATION_CODE");
  });

  it("a session of an unknown PSU type is an unexpected body", async () => {
    fake.session = { ...SESSION, psu_type: "robot" };
    const error = await upstream
      .completeAuthorization({ code: FAKE_AUTHORIZATION_CODE })
      .catch((e: unknown) => e);
    expect((error as UpstreamError).reason).toBe("bank_error");
  });
});

describe("getBalances", () => {
  it("maps each balance; signs kept, `+` dropped, a missing type is OTHR", async () => {
    expect(await upstream.getBalances("acc-1")).toEqual([
      {
        balanceType: "ITBD",
        amount: "987.50",
        currency: "EUR",
        referenceDate: "2026-11-21",
        name: "Booked",
      },
      { balanceType: "ITAV", amount: "1000.00", currency: "EUR", referenceDate: null, name: null },
      { balanceType: "OTHR", amount: "-12.00", currency: "EUR", referenceDate: null, name: null },
    ]);
    expect(lastRequest()?.path).toBe("/accounts/acc-1/balances");
  });

  it("percent-encodes the uid in the path", async () => {
    await expect(upstream.getBalances("acc/2 x")).resolves.toEqual([]);
    expect(fake.requests[0]?.path).toBe("/accounts/acc%2F2%20x/balances");
  });
});

describe("getTransactions", () => {
  async function allPages() {
    const pages: { transactions: UpstreamTransaction[]; continuationKey: string | null }[] = [];
    let continuationKey: string | undefined;
    do {
      const page = await upstream.getTransactions("acc-1", {
        dateFrom: "2026-08-01",
        dateTo: "2026-11-21",
        continuationKey,
      });
      pages.push(page);
      continuationKey = page.continuationKey ?? undefined;
    } while (continuationKey && pages.length < 10);
    return pages;
  }

  it("follows continuation_key across all pages and stops on an empty one", async () => {
    const pages = await allPages();
    expect(pages.map((page) => page.continuationKey)).toEqual(["ck-2", "ck-3", null]);
    expect(fake.requests.map((request) => request.query)).toEqual([
      { date_from: "2026-08-01", date_to: "2026-11-21" },
      { date_from: "2026-08-01", date_to: "2026-11-21", continuation_key: "ck-2" },
      { date_from: "2026-08-01", date_to: "2026-11-21", continuation_key: "ck-3" },
    ]);
    const references = pages.flatMap((page) =>
      page.transactions.map((t) => [t.entryReference, t.transactionId]),
    );
    expect(references).toHaveLength(6);
    // transaction_id is kept apart: it is no reference (lib/banking/identity.ts).
    expect(references.slice(0, 4)).toEqual([
      ["E1", "T1"],
      [null, "T2"],
      [null, null],
      [null, null],
    ]);
    // E5 was cancelled: left out.
    expect(references.slice(4).map(([reference]) => reference)).toEqual(["E4", "E7"]);
    expect(pages[1]?.transactions[0]?.status).toBe("PDNG");
  });

  it("leaves date_to out when not given", async () => {
    await upstream.getTransactions("acc-1", { dateFrom: "2026-08-01" });
    expect(lastRequest()?.query).toEqual({ date_from: "2026-08-01" });
  });

  it("maps every field of a transaction", async () => {
    const [full, salary, coffee] = (
      await upstream.getTransactions("acc-1", { dateFrom: "2026-08-01" })
    ).transactions;
    expect(full).toEqual({
      entryReference: "E1",
      transactionId: "T1",
      amount: "12.50",
      currency: "EUR",
      creditDebitIndicator: "DBIT",
      status: "BOOK",
      bookingDate: "2026-11-20",
      valueDate: "2026-11-20",
      transactionDate: "2026-11-19",
      bankTransactionCode: "PMNT-ICDT-ESCT",
      creditorName: "K-Market",
      creditorIban: "FI5544400000012345",
      creditorBban: null,
      creditorAgentBic: "OKOYFIHH",
      debtorName: "Matti Meikäläinen",
      debtorIban: null,
      debtorBban: "12345600000785",
      debtorAgentBic: "NDEAFIHH",
      remittanceInformation: "Groceries\nCard 1234",
      note: "Weekly shop",
      referenceNumber: "RF18539007547034",
      merchantCategoryCode: "5411",
      balanceAfter: "987.50",
      balanceAfterCurrency: "EUR",
      exchangeRate: "1.0",
      rawJson: JSON.stringify(FULL_TRANSACTION),
    } satisfies UpstreamTransaction);
    expect(salary).toMatchObject({
      amount: "2500.00",
      creditDebitIndicator: "CRDT",
      status: "PDNG",
      bookingDate: null,
      bankTransactionCode: "RCDT",
      remittanceInformation: "Salary November",
      balanceAfter: null,
      exchangeRate: null,
    });
    expect(coffee).toMatchObject({
      amount: "4.20",
      creditDebitIndicator: "DBIT",
      status: "BOOK",
      bookingDate: "2026-11-18",
      bankTransactionCode: "PMNT-CCRD-POSD",
      rawJson: JSON.stringify(COFFEE),
    });
  });

  it("a continuation key Enable Banking does not know is the bank's error", async () => {
    const error = await upstream
      .getTransactions("acc-1", { dateFrom: "2026-08-01", continuationKey: "forged" })
      .catch((e: unknown) => e);
    expect((error as UpstreamError).reason).toBe("bank_error");
    expect((error as UpstreamError).bankErrorCode).toBe("WRONG_CONTINUATION_KEY");
  });
});

describe("PSU headers", () => {
  const psuHeaders = {
    "Psu-Ip-Address": "203.0.113.9",
    "Psu-User-Agent": "Mozilla/5.0",
    "Psu-Referer": "  ",
    Authorization: "Bearer forged",
    "X-Other": "1",
  };
  const psuOf = (headers: Record<string, unknown> | undefined) =>
    Object.fromEntries(Object.entries(headers ?? {}).filter(([name]) => name.startsWith("psu-")));

  it("are not sent when the user is not present", async () => {
    await upstream.getBalances("acc-1");
    await upstream.getTransactions("acc-1", { dateFrom: "2026-08-01" });
    expect(fake.requests.map((request) => psuOf(request.headers))).toEqual([{}, {}]);
  });

  it("are forwarded when given, Psu-* only, never replacing our JWT", async () => {
    await upstream.getBalances("acc-1", { psuHeaders });
    await upstream.getTransactions("acc-1", { dateFrom: "2026-08-01" }, { psuHeaders });
    for (const request of fake.requests) {
      expect(psuOf(request.headers)).toEqual({
        "psu-ip-address": "203.0.113.9",
        "psu-user-agent": "Mozilla/5.0",
      });
      expect(request.headers["x-other"]).toBeUndefined();
      expect(request.jwtPayload?.iss).toBe("enablebanking.com");
    }
    expect(fake.rejections).toEqual([]);
  });
});

describe("closeSession", () => {
  it("deletes the session at Enable Banking", async () => {
    await upstream.closeSession("sess-4f2a");
    expect(lastRequest()?.method).toBe("DELETE");
    expect(lastRequest()?.path).toBe("/sessions/sess-4f2a");
    expect([...fake.closedSessions]).toEqual(["sess-4f2a"]);
  });

  it("is idempotent: a session already closed, expired or revoked has ended", async () => {
    await upstream.closeSession("sess-4f2a");
    await expect(upstream.closeSession("sess-4f2a")).resolves.toBeUndefined();
    fake.script.push({ status: 401, body: { code: 401, error: "REVOKED_SESSION" } });
    await expect(upstream.closeSession("sess-x")).resolves.toBeUndefined();
  });

  it("fails on other errors", async () => {
    // A 500 to every try: ending a session is retried.
    fake.script.push({ status: 500 }, { status: 500 }, { status: 500 });
    await expect(upstream.closeSession("sess-4f2a")).rejects.toMatchObject({ reason: "transient" });
  });
});

describe("applicationStatus", () => {
  it("is active when Enable Banking says so, with the registered redirect URLs", async () => {
    fake.redirectUrls = ["https://connect.example.com/banks/callback"];
    expect(await upstream.applicationStatus()).toEqual({
      active: true,
      redirectUrls: ["https://connect.example.com/banks/callback"],
    });
    expect(lastRequest()?.path).toBe("/application");
    fake.applicationActive = false;
    fake.redirectUrls = [];
    expect(await upstream.applicationStatus()).toEqual({ active: false, redirectUrls: [] });
  });

  it("is inactive when Enable Banking refuses the application's JWT", async () => {
    const other = applicationKeyPair();
    const stranger = enableBankingUpstream({
      apiUrl: fake.url,
      applicationId: APPLICATION_ID,
      privateKey: other.privateKey,
    });
    expect(await stranger.applicationStatus()).toEqual({ active: false, redirectUrls: null });
  });

  it("fails when Enable Banking cannot tell", async () => {
    // A 503 to every try: the read is retried.
    fake.script.push({ status: 503 }, { status: 503 }, { status: 503 });
    await expect(upstream.applicationStatus()).rejects.toMatchObject({ reason: "transient" });
  });
});

describe("answers in a looser shape than the reference's", () => {
  it("a page with malformed exchange rates is read whole, each transaction as the bank sent it", async () => {
    const shapes = Object.values(EXCHANGE_RATE_SHAPES);
    const sent = shapes.map(({ sent: rate }, index) => ({
      ...FULL_TRANSACTION,
      entry_reference: `FX${index}`,
      bank_transaction_code: CARD_PURCHASE_CODE,
      exchange_rate: rate,
    }));
    fake.transactionPages = {
      "acc-1": [{ transactions: [SALARY, ...sent, COFFEE], continuation_key: null }],
    };
    const { transactions } = await upstream.getTransactions("acc-1", { dateFrom: "2026-08-01" });
    expect(transactions).toHaveLength(shapes.length + 2);
    expect(transactions[0]).toMatchObject({ amount: "2500.00", rawJson: JSON.stringify(SALARY) });
    expect(transactions.at(-1)).toMatchObject({ amount: "4.20", rawJson: JSON.stringify(COFFEE) });
    for (const [index, shape] of shapes.entries()) {
      const transaction = transactions[index + 1];
      expect(transaction).toMatchObject({
        amount: "12.50",
        creditorName: "K-Market",
        bankTransactionCode: "CCRD-POSD",
        exchangeRate: shape.rate,
        rawJson: JSON.stringify(sent[index]),
      });
      // The description is the bank's text: only in the sealed rawJson, never in the column.
      expect(JSON.parse(transaction?.rawJson ?? "{}").bank_transaction_code.description).toBe(
        CARD_PURCHASE_CODE.description,
      );
    }
  });

  it("two balances of one type are both read, in the bank's order", async () => {
    fake.balances = { "acc-1": balancesOfTwoSources() };
    expect(await upstream.getBalances("acc-1")).toEqual([
      {
        balanceType: "ITBD",
        amount: "1520.40",
        currency: "EUR",
        referenceDate: "2026-11-20",
        name: "Booked balance",
      },
      {
        balanceType: "ITAV",
        amount: "1490.40",
        currency: "EUR",
        referenceDate: "2026-11-20",
        name: "Available balance",
      },
      {
        balanceType: "ITAV",
        amount: "1402.15",
        currency: "EUR",
        referenceDate: "2026-11-21",
        name: "Available for card payments",
      },
    ]);
  });
});
