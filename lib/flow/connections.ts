import { db } from "../db/client";

export interface ConnectedBank {
  id: string;
  aspspName: string;
  aspspCountry: string;
  accountCount: number;
}

/** The tenant's bank connections, oldest first, as the bank and consent screens list them. */
export async function connectedBanks(subject: string): Promise<ConnectedBank[]> {
  const connections = await db().connection.findMany({
    where: { tenant: { subject } },
    select: {
      id: true,
      aspspName: true,
      aspspCountry: true,
      _count: { select: { accounts: true } },
    },
    orderBy: { createdAt: "asc" },
  });
  return connections.map(({ _count, ...connection }) => ({
    ...connection,
    accountCount: _count.accounts,
  }));
}
