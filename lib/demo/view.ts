/** What /demo shows: the browser's own session, its steps and its accounts read live. */

import { openEnvelope, openOptional } from "./envelope";
import {
  getAccounts,
  getTransactions,
  type AccountWire,
  type Called,
  type DemoStep,
  type SyncResult,
} from "./partner-http";
import {
  credentialsOf,
  endConnection,
  findBrowserSession,
  LATEST_TRANSACTIONS,
  parseSteps,
  sessionCsrfToken,
  startCsrfToken,
  step,
  type DemoStatus,
} from "./demo";
export interface DemoAccount {
  id: string;
  bank: string;
  currency: string;
  needsReconnect: boolean;
  ownerName: string | null;
  iban: string | null;
  accountName: string | null;
  displayName: string | null;
  balances: { type: string; amount: string; currency: string }[];
  transactions: {
    id: string;
    date: string | null;
    amount: string;
    currency: string;
    description: string | null;
  }[];
}

/** "expired": connected, but this browser's keys cookie is gone, expired or from before a restart. */
export type DemoViewStatus = DemoStatus | "expired";

export interface DemoView {
  startToken: string | null;
  /** This page view learned that the connection ended: the browser's keys cookie is to be deleted. */
  forgetKeys: boolean;
  session: {
    status: DemoViewStatus;
    steps: DemoStep[];
    lastSync: SyncResult | null;
    syncToken: string;
    revokeToken: string;
    accounts: DemoAccount[];
  } | null;
}

type AccountEnc = { ownerName?: string | null; iban?: string | null; accountName?: string | null };
type TransactionEnc = {
  amount?: string | null;
  creditorName?: string | null;
  debtorName?: string | null;
  remittanceInformation?: string | null;
};

/** The service refused the key while the page read an account's transactions. */
class KeyRefused extends Error {
  constructor(readonly refused: Called<unknown>) {
    super("the service refused the key");
  }
}

/** How often, and how long apart, the demo asks again for a history still being stored. */
const HISTORY_ATTEMPTS = 5;
const HISTORY_RETRY_MS = 1_000;

async function readAccount(
  apiKey: string,
  privateKey: string,
  account: AccountWire,
  steps: DemoStep[],
): Promise<DemoAccount> {
  const details = openOptional<AccountEnc>(privateKey, account.enc);
  const display = openOptional<{ displayName?: string | null }>(privateKey, account.displayNameEnc);
  let page = await getTransactions(apiKey, account.id, LATEST_TRANSACTIONS);
  // A new connection's history may still be being stored: 503 transient, asked again shortly.
  for (let attempt = 1; page.status === 503 && attempt <= HISTORY_ATTEMPTS; attempt += 1) {
    steps.push(page.step);
    await new Promise((resolve) => setTimeout(resolve, HISTORY_RETRY_MS));
    page = await getTransactions(apiKey, account.id, LATEST_TRANSACTIONS);
  }
  steps.push(page.step);
  if (page.status === 401) throw new KeyRefused(page);
  return {
    id: account.id,
    bank: `${account.aspspName} (${account.aspspCountry})`,
    currency: account.currency,
    needsReconnect: account.needsReconnect,
    ownerName: details?.ownerName ?? null,
    iban: details?.iban ?? null,
    accountName: details?.accountName ?? null,
    displayName: display?.displayName ?? null,
    balances: (account.balances ?? []).map((balance) => ({
      type: balance.type,
      currency: balance.currency,
      amount: openOptional<{ amount?: string }>(privateKey, balance.enc)?.amount ?? "0",
    })),
    transactions: (page.body?.items ?? []).slice(0, LATEST_TRANSACTIONS).map((item) => {
      const enc = item.enc ? openEnvelope<TransactionEnc>(privateKey, item.enc) : null;
      const amount = enc?.amount ?? "0";
      const debit = item.creditDebitIndicator === "DBIT";
      return {
        id: item.id,
        date: item.bookingDate ?? item.transactionDate ?? null,
        // Amounts are unsigned; the indicator gives the sign (/docs/envelopes).
        amount: debit ? `-${amount}` : amount,
        currency: item.currency,
        description:
          (debit ? enc?.creditorName : enc?.debtorName) ?? enc?.remittanceInformation ?? null,
      };
    }),
  };
}

/**
 * What /demo shows this browser: its own session, read live from the data
 * API with the credentials in its keys cookie.
 */
export async function loadDemoView(
  browserId: string | null | undefined,
  keysCookieValue: string | null | undefined,
): Promise<DemoView> {
  const startToken = browserId ? startCsrfToken(browserId) : null;
  const session = await findBrowserSession(browserId);
  if (!session) return { startToken, forgetKeys: false, session: null };
  const steps = parseSteps(session.steps);
  let accounts: DemoAccount[] = [];
  let ended: DemoStatus | null = null;
  const credentials = credentialsOf(session, keysCookieValue);
  if (credentials) {
    const listed = await getAccounts(credentials.apiKey);
    steps.push({
      ...listed.step,
      label: `${listed.step.label} (this page view)`,
      labelKey: "pageView",
      values: { ...listed.step.values, request: listed.step.label },
    });
    try {
      // A dead key (ended at the person's account page, a new key, expiry) answers 401.
      if (listed.status === 401) throw new KeyRefused(listed);
      for (const account of listed.body ?? []) {
        accounts.push(
          await readAccount(credentials.apiKey, credentials.privateKey, account, steps),
        );
      }
      steps.push(
        step(
          "Envelopes opened with the relayed private key",
          `${accounts.length} account(s)`,
          true,
          {
            labelKey: "envelopesOpened",
            detailKey: "accountCount",
            values: { count: accounts.length },
          },
        ),
      );
    } catch (error) {
      accounts = [];
      ended = await endConnection(
        session,
        steps,
        error instanceof KeyRefused ? { refused: error.refused } : { unreadable: error },
      );
    }
  }
  const status: DemoViewStatus =
    ended ??
    (session.status === "connected" && !credentials ? "expired" : (session.status as DemoStatus));
  return {
    startToken,
    // A cookie left from an ended connection holds a dead key and a private key: it goes.
    forgetKeys: Boolean(keysCookieValue) && status !== "connected",
    session: {
      status,
      steps,
      lastSync: (session.lastSync as SyncResult | null) ?? null,
      syncToken: sessionCsrfToken(session, "sync"),
      revokeToken: sessionCsrfToken(session, "revoke"),
      accounts,
    },
  };
}
