import { storeBankSession } from "../../lib/banking/ingest";
import { enableBankingUpstream } from "../../lib/upstream/enable-banking";
import type { Upstream } from "../../lib/upstream/types";
import {
  FAKE_AUTHORIZATION_CODE,
  startFakeEnableBanking,
  type FakeEnableBanking,
  applicationKeyPair,
} from "../../test/fake-enable-banking";

/**
 * The upstream bank of the load run: a real local HTTP server speaking the
 * Enable Banking API (the one the connector's tests use), with one session
 * of two accounts and a few pages of transactions. The service is pointed at
 * it with UPSTREAM=enablebanking, so every sync is a real HTTP round trip
 * that the run can slow down or make fail.
 */

export const ACCOUNT_UIDS = ["load-acc-1", "load-acc-2"] as const;
const APPLICATION_ID = "load-application";

function transactions(uid: string, page: number, count: number) {
  return Array.from({ length: count }, (_, i) => {
    const day = String(1 + ((page * count + i) % 28)).padStart(2, "0");
    return {
      entry_reference: `${uid}-${page}-${i}`,
      transaction_amount: { amount: (5 + i * 1.25).toFixed(2), currency: "EUR" },
      credit_debit_indicator: i % 5 === 0 ? "CRDT" : "DBIT",
      status: "BOOK",
      booking_date: `2026-10-${day}`,
      remittance_information: [`Purchase ${page}-${i}`],
      creditor: { name: "Shop" },
    };
  });
}

export interface LoadBank {
  fake: FakeEnableBanking;
  settings: Record<string, string>;
  upstream: Upstream;
  /** Connects the bank for a tenant, sealed to `sealingKey`, as the flow would. */
  connect(tenantId: string, sealingKey: string): Promise<{ accountIds: string[] }>;
  close(): Promise<void>;
}

export async function startLoadBank(): Promise<LoadBank> {
  const keys = applicationKeyPair();
  const fake = await startFakeEnableBanking({
    applicationId: APPLICATION_ID,
    publicKey: keys.publicKey,
  });
  fake.aspsps = [{ name: "Load Bank", country: "FI", psu_types: ["personal"] }];
  fake.session = {
    session_id: "load-session",
    aspsp: { name: "Load Bank", country: "FI" },
    psu_type: "personal",
    access: { valid_until: new Date(Date.now() + 90 * 86_400_000).toISOString() },
    accounts: ACCOUNT_UIDS.map((uid, index) => ({
      uid,
      currency: "EUR",
      cash_account_type: "CACC",
      account_id: { iban: index === 0 ? "FI2112345600000785" : "FI5544400000012345" },
      name: `Load account ${index + 1}`,
    })),
  };
  for (const uid of ACCOUNT_UIDS) {
    fake.balances[uid] = [
      { balance_amount: { amount: "100.00", currency: "EUR" }, balance_type: "ITBD" },
    ];
    fake.transactionPages[uid] = [0, 1, 2].map((page) => ({
      transactions: transactions(uid, page, 40),
      continuation_key: page < 2 ? `${uid}-ck-${page + 1}` : null,
    }));
  }
  const settings = {
    UPSTREAM: "enablebanking",
    ENABLE_BANKING_API_URL: `${fake.url}/`,
    ENABLE_BANKING_APPLICATION_ID: APPLICATION_ID,
    ENABLE_BANKING_PRIVATE_KEY: keys.privateKey,
  };
  const upstream = enableBankingUpstream({
    apiUrl: settings.ENABLE_BANKING_API_URL,
    applicationId: APPLICATION_ID,
    privateKey: keys.privateKey,
  });
  return {
    fake,
    settings,
    upstream,
    async connect(tenantId, sealingKey) {
      const session = await upstream.completeAuthorization({ code: FAKE_AUTHORIZATION_CODE });
      const stored = await storeBankSession({ tenantId, sealingKey, upstream, session });
      return { accountIds: stored.accountIds };
    },
    close: () => fake.close(),
  };
}
