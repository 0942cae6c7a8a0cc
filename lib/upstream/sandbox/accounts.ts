import type { UpstreamAccount } from "../types";
import {
  findSandboxBankById,
  SANDBOX_COUNTRIES,
  type AccountKind,
  type SandboxBank,
  type SandboxCountry,
} from "./banks";
import { getEnv } from "../../env";
import { randomBban, toIban } from "./iban";
import { keptValues } from "./kept";
import { companyName, couplesName, personName } from "./people";
import { seededRandom } from "./seeded-random";
import { findSandboxToken, signSandboxToken, type SandboxClaims } from "./tokens";

/**
 * The accounts of a sandbox session. Everything is derived from the session's
 * claims, so that an account uid (a signed token carrying session nonce, bank
 * and index) is enough to rebuild the account on any later call: the sandbox
 * keeps no state (docs/architecture.md#upstream-aggregators).
 */

const ACCOUNT_NAMES = {
  DK: ["Lønkonto", "Fælleskonto", "Opsparingskonto", "Erhvervskonto", "Erhvervsopsparing"],
  SE: ["Lönekonto", "Gemensamt konto", "Sparkonto", "Företagskonto", "Företagssparkonto"],
  NO: ["Brukskonto", "Felleskonto", "Sparekonto", "Driftskonto", "Bedriftssparekonto"],
  FI: ["Käyttötili", "Yhteistili", "Säästötili", "Yritystili", "Yrityksen säästötili"],
  DE: ["Girokonto", "Gemeinschaftskonto", "Tagesgeldkonto", "Geschäftskonto", "Geschäftstagesgeld"],
  NL: [
    "Betaalrekening",
    "Gezamenlijke rekening",
    "Spaarrekening",
    "Zakelijke rekening",
    "Zakelijke spaarrekening",
  ],
} as const satisfies Record<SandboxCountry, readonly string[]>;

/** ISO 20022 cash account type, product and the nicknames a user might give it. */
const KIND_DETAILS = {
  current: { nameIndex: 0, type: "CACC", product: "Sandbox Everyday", nicknames: ["Daily", null] },
  joint: { nameIndex: 1, type: "CACC", product: "Sandbox Joint", nicknames: ["Household", null] },
  savings: { nameIndex: 2, type: "SVGS", product: "Sandbox Saver", nicknames: ["Buffer", null] },
  business: {
    nameIndex: 3,
    type: "CACC",
    product: "Sandbox Business",
    nicknames: ["Drift", "Operations"],
  },
  merchant: {
    nameIndex: 3,
    type: "CACC",
    product: "Sandbox Merchant",
    nicknames: ["Shop", null],
  },
  "business-savings": {
    nameIndex: 4,
    type: "SVGS",
    product: "Sandbox Business Saver",
    nicknames: ["Tax reserve", null],
  },
} as const satisfies Record<
  AccountKind,
  { nameIndex: number; type: string; product: string; nicknames: readonly (string | null)[] }
>;

export type SessionClaims = SandboxClaims<"session">;
export type AccountClaims = SandboxClaims<"account">;

/** What the ledger needs to know about one account. */
export interface SandboxAccount {
  uid: string;
  /**
   * What the account's data is generated from: the same person's account at
   * the same bank, whichever consent it is read through. The uid changes
   * with every consent; the seed (and so IBAN and history) does not.
   */
  seed: string;
  claims: AccountClaims;
  bank: SandboxBank;
  kind: AccountKind;
  country: SandboxCountry;
  currency: string;
  unitsPerEuro: number;
  ownerName: string;
  iban: string;
  bban: string;
  accountName: string;
  displayName: string | null;
}

function kindsOf(bank: SandboxBank, psuType: AccountClaims["psuType"]): readonly AccountKind[] {
  return bank.accounts[psuType];
}

/** The owner is the same person (or company) on every account of a session. */
function ownerNameOf(claims: AccountClaims, kind: AccountKind, country: SandboxCountry): string {
  const random = seededRandom("owner", claims.nonce);
  if (claims.psuType === "business") return companyName(random, country);
  return kind === "joint" ? couplesName(random, country) : personName(random, country);
}

function toSandboxAccount(uid: string, claims: AccountClaims): SandboxAccount | null {
  const bank = findSandboxBankById(claims.bank);
  const kind = bank ? kindsOf(bank, claims.psuType)[claims.index] : undefined;
  if (!bank || !kind) return null;
  const country = bank.country;
  const details = KIND_DETAILS[kind];
  const random = seededRandom("account", claims.nonce, claims.bank, claims.index);
  const bban = randomBban(country, bank.bankCode, random);
  return {
    uid,
    seed: `${claims.nonce}|${claims.bank}|${claims.psuType}|${claims.index}`,
    claims,
    bank,
    kind,
    country,
    currency: SANDBOX_COUNTRIES[country].currency,
    unitsPerEuro: SANDBOX_COUNTRIES[country].unitsPerEuro,
    ownerName: ownerNameOf(claims, kind, country),
    iban: toIban(country, bban),
    bban,
    accountName: ACCOUNT_NAMES[country][details.nameIndex],
    displayName: random.pick(details.nicknames),
  };
}

/**
 * Accounts already read from their uid: a history is read page by page, each
 * page naming the account again. Keyed by the signing secret too, so a uid
 * signed with a secret no longer in use is checked again.
 */
const keptAccounts = keptValues<SandboxAccount | null>(1024);

/** The account behind a uid, or null when the uid is not an authentic sandbox account. */
export function findSandboxAccount(uid: string): SandboxAccount | null {
  const secretKey = getEnv().secretKey;
  return keptAccounts(`${secretKey}\u0000${uid}`, () => {
    const claims = findSandboxToken("account", uid, secretKey);
    return claims ? toSandboxAccount(uid, claims) : null;
  });
}

/** 1–3 accounts per session, by bank and PSU type; uids are deterministic per session + index. */
export function toSandboxAccounts(session: SessionClaims): SandboxAccount[] {
  const bank = findSandboxBankById(session.bank);
  if (!bank) return [];
  return kindsOf(bank, session.psuType).flatMap((_, index) => {
    const claims: AccountClaims = {
      nonce: session.nonce,
      bank: session.bank,
      psuType: session.psuType,
      validUntil: session.validUntil,
      index,
      connectedAt: session.issuedAt,
    };
    const account = toSandboxAccount(signSandboxToken("account", claims), claims);
    return account ? [account] : [];
  });
}

export function toUpstreamAccount(account: SandboxAccount): UpstreamAccount {
  return {
    uid: account.uid,
    currency: account.currency,
    accountType: KIND_DETAILS[account.kind].type,
    bic: account.bank.bic,
    ownerName: account.ownerName,
    iban: account.iban,
    bban: account.bban,
    accountName: account.accountName,
    product: KIND_DETAILS[account.kind].product,
    displayName: account.displayName,
  };
}
