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

/** ISO 20022 cash account type, and which of the country's names the account has. */
const KIND_DETAILS = {
  current: { nameIndex: 0, type: "CACC" },
  joint: { nameIndex: 1, type: "CACC" },
  savings: { nameIndex: 2, type: "SVGS" },
  business: { nameIndex: 3, type: "CACC" },
  merchant: { nameIndex: 3, type: "CACC" },
  "business-savings": { nameIndex: 4, type: "SVGS" },
} as const satisfies Record<AccountKind, { nameIndex: number; type: string }>;

/**
 * Per country, in its language as a bank there would show it: the product
 * of each kind of account, and the nicknames its owner might have given it
 * (null: none).
 */
const KIND_TEXTS = {
  DK: {
    current: { product: "Sandbox Hverdag", nicknames: ["Daglig", null] },
    joint: { product: "Sandbox Fælles", nicknames: ["Husholdning", null] },
    savings: { product: "Sandbox Opsparing", nicknames: ["Buffer", null] },
    business: { product: "Sandbox Erhverv", nicknames: ["Drift", "Lønninger"] },
    merchant: { product: "Sandbox Butik", nicknames: ["Butik", null] },
    "business-savings": {
      product: "Sandbox Erhvervsopsparing",
      nicknames: ["Skattereserve", null],
    },
  },
  SE: {
    current: { product: "Sandbox Vardag", nicknames: ["Vardag", null] },
    joint: { product: "Sandbox Gemensam", nicknames: ["Hushåll", null] },
    savings: { product: "Sandbox Spar", nicknames: ["Buffert", null] },
    business: { product: "Sandbox Företag", nicknames: ["Drift", "Löner"] },
    merchant: { product: "Sandbox Handlare", nicknames: ["Butik", null] },
    "business-savings": { product: "Sandbox Företagsspar", nicknames: ["Skattereserv", null] },
  },
  NO: {
    current: { product: "Sandbox Hverdag", nicknames: ["Daglig", null] },
    joint: { product: "Sandbox Felles", nicknames: ["Husholdning", null] },
    savings: { product: "Sandbox Spare", nicknames: ["Buffer", null] },
    business: { product: "Sandbox Bedrift", nicknames: ["Drift", "Lønn"] },
    merchant: { product: "Sandbox Butikk", nicknames: ["Butikk", null] },
    "business-savings": { product: "Sandbox Bedriftsspare", nicknames: ["Skattereserve", null] },
  },
  FI: {
    current: { product: "Sandbox Arki", nicknames: ["Arki", null] },
    joint: { product: "Sandbox Yhteinen", nicknames: ["Kotitalous", null] },
    savings: { product: "Sandbox Säästö", nicknames: ["Puskuri", null] },
    business: { product: "Sandbox Yritys", nicknames: ["Käyttö", "Palkat"] },
    merchant: { product: "Sandbox Kauppias", nicknames: ["Kauppa", null] },
    "business-savings": { product: "Sandbox Yrityssäästö", nicknames: ["Verovaraus", null] },
  },
  DE: {
    current: { product: "Sandbox Alltag", nicknames: ["Alltag", null] },
    joint: { product: "Sandbox Gemeinsam", nicknames: ["Haushalt", null] },
    savings: { product: "Sandbox Sparen", nicknames: ["Rücklage", null] },
    business: { product: "Sandbox Geschäft", nicknames: ["Betrieb", "Gehälter"] },
    merchant: { product: "Sandbox Händler", nicknames: ["Laden", null] },
    "business-savings": { product: "Sandbox Geschäft Sparen", nicknames: ["Steuerrücklage", null] },
  },
  NL: {
    current: { product: "Sandbox Dagelijks", nicknames: ["Dagelijks", null] },
    joint: { product: "Sandbox Samen", nicknames: ["Huishouden", null] },
    savings: { product: "Sandbox Sparen", nicknames: ["Buffer", null] },
    business: { product: "Sandbox Zakelijk", nicknames: ["Bedrijf", "Salarissen"] },
    merchant: { product: "Sandbox Winkelier", nicknames: ["Winkel", null] },
    "business-savings": {
      product: "Sandbox Zakelijk Sparen",
      nicknames: ["Belastingreserve", null],
    },
  },
} as const satisfies Record<
  SandboxCountry,
  Record<AccountKind, { product: string; nicknames: readonly (string | null)[] }>
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
    displayName: random.pick(KIND_TEXTS[country][kind].nicknames),
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
    product: KIND_TEXTS[account.country][account.kind].product,
    displayName: account.displayName,
  };
}
