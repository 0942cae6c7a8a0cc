import { describe, expect, it } from "vitest";
import { UpstreamError, type UpstreamSession, type UpstreamTransaction } from "../types";
import { SANDBOX_BANKS, SANDBOX_COUNTRIES, type SandboxBank } from "./banks";
import {
  approveSandboxAuthorization,
  denySandboxAuthorization,
  describeSandboxAuthorization,
} from "./consent";
import { findSandboxAccount } from "./accounts";
import { counterpartyAccount } from "./drafts";
import { isValidIban } from "./iban";
import { sandboxUpstream } from "./index";

const NOW = new Date("2026-11-21T10:00:00Z");
const sandbox = sandboxUpstream({ now: () => NOW, baseUrl: "http://localhost:3000" });
const REDIRECT = "http://localhost:3000/banks/callback";

async function connect(
  bankName = "Sandbox Nordbank DK",
  country = "DK",
  psuType: "personal" | "business" = "personal",
): Promise<UpstreamSession> {
  const { url } = await sandbox.startAuthorization({
    aspsp: { name: bankName, country },
    psuType,
    redirectUrl: REDIRECT,
    state: "st-1",
    validUntil: new Date(NOW.getTime() + 365 * 86_400_000),
    language: "da",
  });
  const authorization = new URL(url).searchParams.get("authorization") ?? "";
  const back = new URL(approveSandboxAuthorization(authorization, NOW) ?? "");
  expect(back.searchParams.get("state")).toBe("st-1");
  return sandbox.completeAuthorization({ code: back.searchParams.get("code") ?? "" });
}

async function allTransactions(uid: string, dateFrom: string, dateTo?: string) {
  const pages: UpstreamTransaction[][] = [];
  let continuationKey: string | undefined;
  do {
    const page = await sandbox.getTransactions(uid, { dateFrom, dateTo, continuationKey });
    pages.push(page.transactions);
    continuationKey = page.continuationKey ?? undefined;
  } while (continuationKey);
  return pages;
}

describe("sandbox banks", () => {
  it("lists banks in every sandbox country and filters by country", async () => {
    const all = await sandbox.listBanks();
    for (const country of ["DK", "SE", "NO", "FI", "DE", "NL"]) {
      expect(all.some((bank) => bank.country === country)).toBe(true);
    }
    const swedish = await sandbox.listBanks({ country: "se" });
    expect(swedish.length).toBeGreaterThan(0);
    expect(swedish.every((bank) => bank.country === "SE")).toBe(true);
  });

  it("refuses an unknown bank and a PSU type the bank does not serve", async () => {
    const input = {
      psuType: "personal" as const,
      redirectUrl: REDIRECT,
      state: "s",
      validUntil: NOW,
      language: "en",
    };
    await expect(
      sandbox.startAuthorization({ ...input, aspsp: { name: "Nope", country: "DK" } }),
    ).rejects.toBeInstanceOf(UpstreamError);
    await expect(
      sandbox.startAuthorization({
        ...input,
        aspsp: { name: "Sandbox Erhvervsbank DK", country: "DK" },
      }),
    ).rejects.toMatchObject({ bankErrorCode: "WRONG_PSU_TYPE" });
  });
});

describe("sandbox consent page", () => {
  it("describes the request, caps validity at the bank's maximum, and denies with state", async () => {
    const { url } = await sandbox.startAuthorization({
      aspsp: { name: "Sandbox Andelskasse DK", country: "DK" },
      psuType: "personal",
      redirectUrl: REDIRECT,
      state: "st-9",
      validUntil: new Date(NOW.getTime() + 365 * 86_400_000),
      language: "da",
    });
    const authorization = new URL(url).searchParams.get("authorization") ?? "";
    const described = describeSandboxAuthorization(authorization, NOW);
    expect(described?.aspsp).toEqual({ name: "Sandbox Andelskasse DK", country: "DK" });
    expect(described?.validUntil.getTime()).toBe(NOW.getTime() + 90 * 86_400_000);

    const denied = new URL(denySandboxAuthorization(authorization, NOW) ?? "");
    expect(denied.origin + denied.pathname).toBe(REDIRECT);
    expect(denied.searchParams.get("error")).toBe("access_denied");
    expect(denied.searchParams.get("state")).toBe("st-9");
    expect(denied.searchParams.has("code")).toBe(false);
  });

  it("refuses a tampered or expired authorization", async () => {
    const { authorizationId } = await sandbox.startAuthorization({
      aspsp: { name: "Sandbox Nordbank DK", country: "DK" },
      psuType: "personal",
      redirectUrl: REDIRECT,
      state: "s",
      validUntil: NOW,
      language: "en",
    });
    const [prefix, body = "", mac] = authorizationId.split(".");
    const claims = JSON.parse(Buffer.from(body, "base64url").toString());
    claims.redirectUrl = "https://evil.example/steal";
    const forged = `${prefix}.${Buffer.from(JSON.stringify(claims)).toString("base64url")}.${mac}`;
    expect(describeSandboxAuthorization(forged, NOW)).toBeNull();
    expect(approveSandboxAuthorization(forged, NOW)).toBeNull();
    const later = new Date(NOW.getTime() + 31 * 60_000);
    expect(approveSandboxAuthorization(authorizationId, later)).toBeNull();
  });

  it("refuses a forged code at the session exchange", async () => {
    await expect(sandbox.completeAuthorization({ code: "sbxcode.e30.AAAA" })).rejects.toMatchObject(
      { bankErrorCode: "WRONG_AUTHORIZATION_CODE" },
    );
  });
});

describe("sandbox accounts", () => {
  it("gives realistic accounts with valid IBANs in the country's currency", async () => {
    for (const [name, country] of [
      ["Sandbox Nordbank DK", "DK"],
      ["Sandbox Sparbank SE", "SE"],
      ["Sandbox Fjordbank NO", "NO"],
      ["Sandbox Saaristopankki FI", "FI"],
      ["Sandbox Sparkasse DE", "DE"],
      ["Sandbox Polderbank NL", "NL"],
    ] as const) {
      const session = await connect(name, country);
      expect(session.accounts.length).toBeGreaterThan(0);
      for (const account of session.accounts) {
        expect(account.iban?.startsWith(country)).toBe(true);
        expect(isValidIban(account.iban ?? "")).toBe(true);
        expect(account.bban).toBeTruthy();
        expect(account.ownerName).toBeTruthy();
        expect(account.currency).toBe(SANDBOX_COUNTRIES[country].currency);
      }
    }
  });

  it("names products and nicknames in the bank's own language, never in English", async () => {
    const english =
      /\b(Everyday|Daily|Joint|Household|Saver|Business|Operations|Merchant|Shop|Tax)\b/;
    const seen = new Set<string>();
    const banks: readonly SandboxBank[] = SANDBOX_BANKS;
    for (const bank of banks) {
      if (bank.scenario) continue;
      for (const psuType of bank.psuTypes) {
        if (bank.accounts[psuType].length === 0) continue;
        const session = await connect(bank.name, bank.country, psuType);
        for (const account of session.accounts) {
          for (const text of [account.product, account.displayName, account.accountName]) {
            if (text === null || text === undefined) continue;
            expect(text, `${bank.name} ${psuType}`).not.toMatch(english);
            seen.add(text);
          }
        }
      }
    }
    // The products are the country's own.
    expect(seen).toContain("Sandbox Geschäft");
    expect(seen).toContain("Sandbox Hverdag");
  });

  it("gives booked and available balances, booked matching the newest balanceAfter", async () => {
    const session = await connect();
    const current = session.accounts[0];
    if (!current) throw new Error("no account");
    const balances = await sandbox.getBalances(current.uid);
    expect(balances.map((balance) => balance.balanceType)).toEqual(["ITBD", "ITAV"]);
    for (const balance of balances) expect(balance.amount).toMatch(/^-?\d+\.\d{2}$/);
    const [newest] = (await allTransactions(current.uid, "2026-10-01")).flat();
    expect(newest?.balanceAfter).toBe(balances[0]?.amount);
    expect(Number(balances[1]?.amount)).toBeLessThanOrEqual(Number(balances[0]?.amount));
  });

  it("serves at least 90 days of deterministic history, newest first, paged without gaps", async () => {
    const session = await connect();
    const uid = session.accounts[0]?.uid ?? "";
    const pages = await allTransactions(uid, "2026-08-01");
    const transactions = pages.flat();
    expect(pages.length).toBeGreaterThan(1);
    expect(transactions.length).toBeGreaterThan(90);

    const dates = transactions.map((transaction) => transaction.bookingDate ?? "");
    expect(dates).toEqual([...dates].sort().reverse());
    expect(dates.at(-1)! <= "2026-08-03").toBe(true);
    // Every session draws its own history, so the newest booking is recent but not always
    // from the last two days (about 1 in 60 draws has a quiet end of the week).
    expect(dates[0]! >= "2026-11-14").toBe(true);
    const references = transactions.map((transaction) => transaction.entryReference);
    expect(new Set(references).size).toBe(references.length);

    // The same account and window always give the same statement.
    expect((await allTransactions(uid, "2026-08-01")).flat()).toEqual(transactions);
    // A narrower window is a slice of the same statement.
    const october = (await allTransactions(uid, "2026-10-01", "2026-10-31")).flat();
    expect(october).toEqual(
      transactions.filter((t) => t.bookingDate! >= "2026-10-01" && t.bookingDate! <= "2026-10-31"),
    );

    for (const transaction of transactions.slice(0, 20)) {
      expect(transaction.amount).toMatch(/^\d+\.\d{2}$/);
      expect(["CRDT", "DBIT"]).toContain(transaction.creditDebitIndicator);
      expect(JSON.parse(transaction.rawJson).entry_reference).toBe(transaction.entryReference);
    }
  });

  it("refuses a continuation key from another account and a bad period", async () => {
    const session = await connect("Sandbox Nordbank DK", "DK");
    const [first, second] = session.accounts;
    if (!first || !second) throw new Error("expected two accounts");
    const page = await sandbox.getTransactions(first.uid, { dateFrom: "2026-06-01" });
    expect(page.continuationKey).toBeTruthy();
    await expect(
      sandbox.getTransactions(second.uid, {
        dateFrom: "2026-06-01",
        continuationKey: page.continuationKey ?? "",
      }),
    ).rejects.toMatchObject({ bankErrorCode: "WRONG_CONTINUATION_KEY" });
    await expect(
      sandbox.getTransactions(first.uid, { dateFrom: "2026-11-30", dateTo: "2026-11-01" }),
    ).rejects.toMatchObject({ bankErrorCode: "WRONG_TRANSACTIONS_PERIOD" });
  });

  it("answers reconnect_needed once the consent has ended", async () => {
    const session = await connect("Sandbox Andelskasse DK", "DK");
    const uid = session.accounts[0]?.uid ?? "";
    const later = sandboxUpstream({ now: () => new Date(NOW.getTime() + 91 * 86_400_000) });
    await expect(later.getBalances(uid)).rejects.toMatchObject({
      reason: "reconnect_needed",
      bankErrorCode: "EXPIRED_SESSION",
    });
  });
});

describe("the same person at the same bank", () => {
  async function consent(psuId: string, at: Date) {
    const bank = sandboxUpstream({ now: () => at, baseUrl: "http://localhost:3000" });
    const { authorizationId } = await bank.startAuthorization({
      aspsp: { name: "Sandbox Nordbank DK", country: "DK" },
      psuType: "personal",
      redirectUrl: REDIRECT,
      state: "s",
      validUntil: new Date(at.getTime() + 90 * 86_400_000),
      language: "da",
      psuId,
    });
    const back = new URL(approveSandboxAuthorization(authorizationId, at) ?? "");
    return bank.completeAuthorization({ code: back.searchParams.get("code") ?? "" });
  }

  it("gets the same accounts and history on every consent, under new uids", async () => {
    const first = await consent("psu-1", NOW);
    const second = await consent("psu-1", new Date(NOW.getTime() + 60_000));
    const other = await consent("psu-2", NOW);
    const ibans = (session: UpstreamSession) => session.accounts.map((account) => account.iban);
    expect(ibans(second)).toEqual(ibans(first));
    expect(ibans(other)).not.toEqual(ibans(first));
    const [a, b] = [first.accounts[0]?.uid ?? "", second.accounts[0]?.uid ?? ""];
    expect(a).not.toBe(b);
    const references = async (uid: string) =>
      (await sandbox.getTransactions(uid, { dateFrom: "2026-11-01" })).transactions.map(
        (transaction) => transaction.entryReference,
      );
    expect(await references(b)).toEqual(await references(a));
  });
});

describe("counterparty accounts", () => {
  it("are the same for a name every time, valid, and cannot be changed by a caller", async () => {
    const session = await connect();
    const account = findSandboxAccount(session.accounts[0]?.uid ?? "");
    if (!account) throw new Error("no account");
    const first = counterpartyAccount(account, "Nets Denmark");
    const again = counterpartyAccount(account, "Nets Denmark");
    expect(again).toEqual(first);
    expect(isValidIban(first.iban ?? "")).toBe(true);
    expect(counterpartyAccount(account, "Another Shop ApS").iban).not.toBe(first.iban);
    expect(() => {
      (first as { iban: string | null }).iban = "DK0000000000000000";
    }).toThrow(TypeError);
    expect(counterpartyAccount(account, "Nets Denmark").iban).toBe(again.iban);
  });
});
