import {
  accountLabel,
  type OpenedAccount,
  type OpenedDetails,
} from "../../lib/account/account-name";
import { openJson } from "../../lib/crypto/envelope";
import { db } from "../../lib/db/client";
import { connectJourneyDatabase } from "./database";

/**
 * The account lines "Connected banks" on My access shows for the person (by
 * id or email), in its order: each account's name opened with their key
 * (lib/account/account-name.ts), else "Account N (currency)"; with
 * `privateKey` null, what the page shows before the key is unlocked.
 */
export async function accountLines(
  user: { id: string } | { email: string },
  privateKey: string | null,
): Promise<string[]> {
  connectJourneyDatabase();
  const connections = await db().connection.findMany({
    where: { tenant: { user } },
    orderBy: [{ createdAt: "asc" }, { id: "asc" }],
    select: {
      accounts: {
        orderBy: [{ createdAt: "asc" }, { id: "asc" }],
        select: { currency: true, displayNameEnc: true, enc: true },
      },
    },
  });
  return connections.flatMap((connection) =>
    connection.accounts.map((account, index) => {
      const open = <T>(envelope: string | null) =>
        privateKey && envelope ? openJson<T>(privateKey, envelope) : null;
      const label = privateKey
        ? accountLabel(
            open<OpenedAccount>(account.displayNameEnc),
            open<OpenedDetails>(account.enc),
          )
        : null;
      return label ?? `Account ${index + 1} (${account.currency})`;
    }),
  );
}
