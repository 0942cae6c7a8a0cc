import { recipientKeyFingerprint } from "../crypto/envelope";
import { db } from "../db/client";
import { SCREEN_BRANDING_SELECT, toScreenBranding } from "../partners/branding";

/**
 * What the "My access" page shows a signed-in person (docs/account.md): the
 * partners that can read their data, with each live key; their bank
 * connections, each saying whether the partner it was made for can still
 * read it, with the accounts' sealed names and details (opened in the
 * browser, never here); and their own key's fingerprint.
 */

export interface AccessKey {
  prefix: string;
  createdAt: string;
  expiresAt: string;
  lastUsedAt: string | null;
}

export interface PartnerAccess {
  partnerId: string;
  name: string;
  logoUrl: string | null;
  keys: AccessKey[];
}

export interface BankAccountView {
  id: string;
  currency: string;
  accountType: string | null;
  /** Sealed `{displayName}`; only the browser holding the user's key opens it. */
  displayNameEnc: string | null;
  /**
   * Sealed `{accountName, product, iban, bban, ...}`: what names an account
   * the person gave no name of their own ("Everyday · •••• 1234").
   */
  detailsEnc: string | null;
}

/**
 * Whether the partner a connection was made for can read it: `live` while
 * it holds a live key (or a code it has yet to exchange), `ended` once the
 * person ended its access or its keys expired; null for the person's own.
 */
export type PartnerAccessState = "live" | "ended" | null;

export interface BankConnectionView {
  id: string;
  bank: string;
  country: string;
  status: "Active" | "Expired" | "Withdrawn" | "Replaced";
  validUntil: string;
  /** The partner the connection was made for (null: the person's own). */
  partnerName: string | null;
  partnerId: string | null;
  partnerAccess: PartnerAccessState;
  /** Sealed to the person's current key: the browser can open it. */
  sealedToUser: boolean;
  /** Sealed `{sessionId}`: the browser opens it so the upstream consent can be closed. */
  upstreamSessionEnc: string | null;
  accounts: BankAccountView[];
}

export interface UserKeyView {
  fingerprint: string;
  createdAt: string | null;
  publicKey: string;
  /** When the person last confirmed a saved passphrase backup of this key (ISO), or null. */
  backupAt: string | null;
}

export interface AccountOverview {
  access: PartnerAccess[];
  banks: BankConnectionView[];
  key: UserKeyView | null;
}

export async function loadAccountOverview(
  userId: string,
  now = new Date(),
): Promise<AccountOverview> {
  const [user, keys, pendingCodes, connections] = await Promise.all([
    db().user.findUniqueOrThrow({
      where: { id: userId },
      select: { publicKey: true, publicKeyAt: true, keyBackupAt: true },
    }),
    db().apiKey.findMany({
      where: {
        tenant: { userId },
        revokedAt: null,
        expiresAt: { gt: now },
        client: { partnerId: { not: null } },
      },
      orderBy: [{ createdAt: "asc" }, { id: "asc" }],
      select: {
        prefix: true,
        createdAt: true,
        expiresAt: true,
        lastUsedAt: true,
        client: {
          select: {
            name: true,
            partner: { select: { id: true, name: true, ...SCREEN_BRANDING_SELECT } },
          },
        },
      },
    }),
    // A code not yet exchanged becomes a key within seconds: that access has not ended.
    db().authorizationCode.findMany({
      where: {
        tenant: { userId },
        consumedAt: null,
        expiresAt: { gt: now },
        client: { partnerId: { not: null } },
      },
      select: { client: { select: { partnerId: true } } },
    }),
    db().connection.findMany({
      where: { tenant: { userId } },
      orderBy: [{ createdAt: "asc" }, { id: "asc" }],
      select: {
        id: true,
        aspspName: true,
        aspspCountry: true,
        status: true,
        validUntil: true,
        upstreamSessionEnc: true,
        tenant: {
          select: {
            sealingKey: true,
            sealingKeyKind: true,
            partner: { select: { id: true, name: true, displayName: true } },
          },
        },
        accounts: {
          orderBy: [{ createdAt: "asc" }, { id: "asc" }],
          select: {
            id: true,
            currency: true,
            accountType: true,
            displayNameEnc: true,
            enc: true,
          },
        },
      },
    }),
  ]);

  const access = new Map<string, PartnerAccess>();
  for (const key of keys) {
    const partner = key.client.partner;
    if (!partner) continue;
    let entry = access.get(partner.id);
    if (!entry) {
      const branding = toScreenBranding(partner, key.client.name);
      entry = { partnerId: partner.id, name: branding.name, logoUrl: branding.logoUrl, keys: [] };
      access.set(partner.id, entry);
    }
    entry.keys.push({
      prefix: key.prefix,
      createdAt: key.createdAt.toISOString(),
      expiresAt: key.expiresAt.toISOString(),
      lastUsedAt: key.lastUsedAt?.toISOString() ?? null,
    });
  }

  const reading = new Set([
    ...access.keys(),
    ...pendingCodes.map((code) => code.client.partnerId ?? ""),
  ]);
  const banks = connections.map((connection): BankConnectionView => {
    const sealedToUser =
      connection.tenant.sealingKeyKind === "user" &&
      user.publicKey !== null &&
      connection.tenant.sealingKey === user.publicKey;
    const partner = connection.tenant.partner;
    return {
      id: connection.id,
      bank: connection.aspspName,
      country: connection.aspspCountry,
      status: connection.status,
      validUntil: connection.validUntil.toISOString(),
      partnerName: partner ? partner.displayName || partner.name : null,
      partnerId: partner?.id ?? null,
      partnerAccess: partner ? (reading.has(partner.id) ? "live" : "ended") : null,
      sealedToUser,
      upstreamSessionEnc: sealedToUser ? connection.upstreamSessionEnc : null,
      accounts: connection.accounts.map(({ enc, ...account }) => ({
        ...account,
        displayNameEnc: sealedToUser ? account.displayNameEnc : null,
        detailsEnc: sealedToUser ? enc : null,
      })),
    };
  });

  return {
    access: [...access.values()],
    banks,
    key: user.publicKey
      ? {
          fingerprint: recipientKeyFingerprint(user.publicKey),
          createdAt: user.publicKeyAt?.toISOString() ?? null,
          publicKey: user.publicKey,
          backupAt: user.keyBackupAt?.toISOString() ?? null,
        }
      : null,
  };
}
