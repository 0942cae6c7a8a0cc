import { afterAll, beforeAll } from "vitest";
import * as accountSyncRoute from "@/app/api/accounts/[id]/sync/route";
import { ACCOUNT_UIDS, startLoadBank, type LoadBank } from "@/scripts/load/bank";
import { db } from "../lib/db/client";
import { setSetting } from "../lib/env";
import { partnerTenantOf, partnerWithRecipientKey } from "./bank-data";
import { useScratchDatabase, type ScratchDatabase } from "./db-pressure";
import { ISSUER, mintApiKey } from "./oauth-fixtures";

/** One account of the load bank (a real HTTP Enable Banking fake), read with a partner's key. */
export interface LoadBankAccount {
  bank: LoadBank;
  scratch: ScratchDatabase;
  key: string;
  accountId: string;
  connectionId: string;
  /** The bank's uid of the account. */
  uid: string;
  /** `POST /api/accounts/{id}/sync` through its route handler, as the partner sends it. */
  sync(): Promise<Response>;
}

/**
 * Starts the load bank and a scratch database named `label` before the file's
 * tests, connects one account of it for a partner with a recipient key, and
 * stops both after them. The fields are filled in by the time a test runs.
 */
export function loadBankAccountFixture(label: string): LoadBankAccount {
  const uid = ACCOUNT_UIDS[0];
  const account = { uid } as LoadBankAccount;
  account.sync = () =>
    accountSyncRoute.POST(
      new Request(`${ISSUER}/api/accounts/${account.accountId}/sync`, {
        method: "POST",
        headers: { "X-Api-Key": account.key, "Content-Type": "application/json" },
        body: JSON.stringify({ uid }),
      }),
      { params: Promise.resolve({ id: account.accountId }) },
    );

  beforeAll(async () => {
    account.bank = await startLoadBank();
    account.scratch = await useScratchDatabase(label, account.bank.settings);
    const { client, keys } = await partnerWithRecipientKey();
    const minted = await mintApiKey(client);
    account.key = minted.key;
    const tenant = await partnerTenantOf(client, minted.user);
    const connected = await account.bank.connect(tenant.id, keys.publicKeyRawB64);
    account.accountId = connected.accountIds[0] ?? "";
    const stored = await db().account.findUniqueOrThrow({ where: { id: account.accountId } });
    account.connectionId = stored.connectionId;
  });

  afterAll(async () => {
    setSetting("SYNC_DEADLINE_SECONDS", "");
    await account.scratch.release();
    await account.bank.close();
  });

  return account;
}
