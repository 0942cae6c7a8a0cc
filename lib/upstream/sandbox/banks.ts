import { PRESENCE_PSU_HEADERS } from "../psu-headers";
import type { Aspsp, PsuType, UpstreamFailureReason } from "../types";

/**
 * The sandbox's banks (docs/architecture.md#upstream-aggregators): fictional, clearly named "Sandbox …",
 * two or three per country, deterministic. The bank code is the national
 * bank identifier inside the BBAN (DK reg. no., SE clearing, NO/FI bank id,
 * DE Bankleitzahl, NL bank code) so that IBANs look like the real thing.
 */

export const SANDBOX_COUNTRIES = {
  DK: { currency: "DKK", unitsPerEuro: 7.46 },
  SE: { currency: "SEK", unitsPerEuro: 11.3 },
  NO: { currency: "NOK", unitsPerEuro: 11.7 },
  FI: { currency: "EUR", unitsPerEuro: 1 },
  DE: { currency: "EUR", unitsPerEuro: 1 },
  NL: { currency: "EUR", unitsPerEuro: 1 },
} as const satisfies Record<string, { currency: string; unitsPerEuro: number }>;

export type SandboxCountry = keyof typeof SANDBOX_COUNTRIES;

/** What an account does, which decides its transactions (see ledger.ts). */
export type AccountKind =
  | "current"
  | "joint"
  | "savings"
  | "business"
  | "business-savings"
  /** A shop's account: the business day plus card-terminal settlements all day long. */
  | "merchant";

/**
 * Failure scenarios for QA (docs/architecture.md#upstream-aggregators: a scenario bank
 * for every sync failure reason). Declared here; the sync issue makes them fail.
 */
export interface SandboxScenario {
  reason: UpstreamFailureReason;
  bankErrorCode?: string;
  retryAfterSeconds?: number;
  /** Fails only when the read carries no PSU headers (the holder is not present). */
  unlessPsuPresent?: boolean;
}

export interface SandboxBank {
  /** Stable id carried in tokens; never shown. */
  id: string;
  name: string;
  country: SandboxCountry;
  bic: string;
  bankCode: string;
  psuTypes: readonly PsuType[];
  maxConsentDays: number;
  accounts: { personal: readonly AccountKind[]; business: readonly AccountKind[] };
  scenario?: SandboxScenario;
  /** A consent shorter than a day, so that its expiry can be watched (minutes). */
  consentMinutes?: number;
  /**
   * Enable Banking `required_psu_headers` (lower case): a read with the holder present that
   * lacks one fails with PSU_HEADER_NOT_PROVIDED; a background read does not need them.
   */
  requiredPsuHeaders?: readonly string[];
  /**
   * Card payments are reported pending (`PDNG`) from the day they are made until they book a
   * day or two later, and a hotel's deposit is released after two days (card-day.ts, pending.ts).
   */
  pendingCardPayments?: boolean;
}

const PERSONAL_AND_BUSINESS = ["personal", "business"] as const;
const EVERYDAY = { personal: ["current", "savings"], business: ["business"] } as const;
const FULL = {
  personal: ["current", "joint", "savings"],
  business: ["business", "business-savings"],
} as const;

export const SANDBOX_BANKS = [
  {
    id: "dk-nordbank",
    name: "Sandbox Nordbank DK",
    country: "DK",
    bic: "SBNODKKK",
    bankCode: "9570",
    psuTypes: PERSONAL_AND_BUSINESS,
    maxConsentDays: 180,
    accounts: FULL,
  },
  {
    id: "dk-andelskasse",
    name: "Sandbox Andelskasse DK",
    country: "DK",
    bic: "SBAKDKKK",
    bankCode: "8411",
    psuTypes: ["personal"],
    maxConsentDays: 90,
    accounts: { personal: ["current"], business: [] },
  },
  {
    id: "dk-erhvervsbank",
    name: "Sandbox Erhvervsbank DK",
    country: "DK",
    bic: "SBERDKKK",
    bankCode: "7320",
    psuTypes: ["business"],
    maxConsentDays: 180,
    accounts: FULL,
  },
  {
    id: "se-sparbank",
    name: "Sandbox Sparbank SE",
    country: "SE",
    bic: "SBSPSESS",
    bankCode: "935",
    psuTypes: PERSONAL_AND_BUSINESS,
    maxConsentDays: 180,
    accounts: FULL,
  },
  {
    id: "se-handelsbank",
    name: "Sandbox Handelsbank SE",
    country: "SE",
    bic: "SBHASESS",
    bankCode: "967",
    psuTypes: PERSONAL_AND_BUSINESS,
    maxConsentDays: 90,
    accounts: EVERYDAY,
  },
  {
    id: "no-fjordbank",
    name: "Sandbox Fjordbank NO",
    country: "NO",
    bic: "SBFJNOKK",
    bankCode: "9710",
    psuTypes: PERSONAL_AND_BUSINESS,
    maxConsentDays: 180,
    accounts: FULL,
  },
  {
    id: "no-sparebank",
    name: "Sandbox Sparebank NO",
    country: "NO",
    bic: "SBSBNOKK",
    bankCode: "9802",
    psuTypes: ["personal"],
    maxConsentDays: 90,
    accounts: EVERYDAY,
  },
  {
    id: "fi-saaristopankki",
    name: "Sandbox Saaristopankki FI",
    country: "FI",
    bic: "SBSAFIHH",
    bankCode: "798765",
    psuTypes: PERSONAL_AND_BUSINESS,
    maxConsentDays: 180,
    accounts: FULL,
  },
  {
    id: "fi-osuuspankki",
    name: "Sandbox Osuuspankki FI",
    country: "FI",
    bic: "SBOPFIHH",
    bankCode: "799123",
    psuTypes: PERSONAL_AND_BUSINESS,
    maxConsentDays: 90,
    accounts: EVERYDAY,
  },
  {
    id: "de-sparkasse",
    name: "Sandbox Sparkasse DE",
    country: "DE",
    bic: "SBSKDEFF",
    bankCode: "10099990",
    psuTypes: PERSONAL_AND_BUSINESS,
    maxConsentDays: 180,
    accounts: FULL,
  },
  {
    id: "de-direktbank",
    name: "Sandbox Direktbank DE",
    country: "DE",
    bic: "SBDBDEBB",
    bankCode: "37099990",
    psuTypes: ["personal"],
    maxConsentDays: 90,
    accounts: EVERYDAY,
  },
  {
    id: "nl-polderbank",
    name: "Sandbox Polderbank NL",
    country: "NL",
    bic: "SBXPNL2A",
    bankCode: "SBXP",
    psuTypes: PERSONAL_AND_BUSINESS,
    maxConsentDays: 180,
    accounts: FULL,
  },
  {
    id: "nl-grachtenbank",
    name: "Sandbox Grachtenbank NL",
    country: "NL",
    bic: "SBXGNL2A",
    bankCode: "SBXG",
    psuTypes: ["personal"],
    maxConsentDays: 90,
    accounts: EVERYDAY,
  },
  {
    // A high-volume business bank: a shop's account books about fifteen entries a day.
    id: "dk-handelsbank",
    name: "Sandbox Handelsbank DK",
    country: "DK",
    bic: "SBHDDKKK",
    bankCode: "6470",
    psuTypes: ["business"],
    maxConsentDays: 180,
    accounts: { personal: [], business: ["merchant", "business-savings"] },
  },
  ...scenarioBanks(),
] as const satisfies readonly SandboxBank[];

/**
 * One DK bank per sync failure reason of /docs/sync (and psu_present_required), each with the
 * Enable Banking code it answers with, and a bank whose consent lasts five
 * minutes. A scenario bank behaves normally for the first minute after the
 * consent (so that connecting it works), then every read fails
 * (SANDBOX_SCENARIO_GRACE_MS in index.ts).
 */
function scenarioBanks(): SandboxBank[] {
  const scenarios = [
    ["reconnect-needed", { reason: "reconnect_needed", bankErrorCode: "EXPIRED_SESSION" }],
    ["consent-withdrawn", { reason: "consent_withdrawn", bankErrorCode: "REVOKED_SESSION" }],
    [
      "rate-limited",
      {
        reason: "rate_limited",
        bankErrorCode: "ASPSP_RATE_LIMIT_EXCEEDED",
        retryAfterSeconds: 3600,
      },
    ],
    ["bank-error", { reason: "bank_error", bankErrorCode: "ASPSP_ERROR" }],
    ["transient", { reason: "transient" }],
    ["partner-app-inactive", { reason: "partner_app_inactive" }],
    [
      "psu-present-required",
      {
        // Enable Banking's answer to a background read at a bank that shares data only with
        // the holder present; the sync reports it as psu_present_required (/docs/sync).
        reason: "psu_headers_missing",
        bankErrorCode: "PSU_HEADER_NOT_PROVIDED",
        unlessPsuPresent: true,
      },
    ],
  ] as const satisfies readonly (readonly [string, SandboxScenario])[];
  const failing: SandboxBank[] = scenarios.map(([slug, scenario], index) => ({
    id: `dk-scenario-${slug}`,
    name: `Sandbox Scenario DK: ${slug.replaceAll("-", " ")}`,
    country: "DK",
    bic: "SBSCDKKK",
    bankCode: String(7900 + index),
    psuTypes: PERSONAL_AND_BUSINESS,
    maxConsentDays: 90,
    accounts: EVERYDAY,
    scenario,
    ...(slug === "psu-present-required" && { requiredPsuHeaders: PRESENCE_PSU_HEADERS }),
  }));
  return [
    ...failing,
    {
      id: "dk-scenario-short-consent",
      name: "Sandbox Scenario DK: short consent",
      country: "DK",
      bic: "SBSCDKKK",
      bankCode: String(7900 + failing.length),
      psuTypes: PERSONAL_AND_BUSINESS,
      maxConsentDays: 1,
      consentMinutes: 5,
      accounts: EVERYDAY,
    },
    {
      // Serves background reads; a read with the holder present needs their location too.
      id: "dk-scenario-psu-headers-missing",
      name: "Sandbox Scenario DK: psu headers missing",
      country: "DK",
      bic: "SBSCDKKK",
      bankCode: String(7901 + failing.length),
      psuTypes: PERSONAL_AND_BUSINESS,
      maxConsentDays: 90,
      accounts: EVERYDAY,
      requiredPsuHeaders: [...PRESENCE_PSU_HEADERS, "psu-geo-location"],
    },
    {
      // A card account read day by day: what is pending books, or is released, on a later day.
      id: "dk-scenario-pending-card-payments",
      name: "Sandbox Scenario DK: pending card payments",
      country: "DK",
      bic: "SBSCDKKK",
      bankCode: String(7902 + failing.length),
      psuTypes: ["personal"],
      maxConsentDays: 90,
      accounts: { personal: ["current"], business: [] },
      pendingCardPayments: true,
    },
  ];
}

export function toAspsp(bank: SandboxBank): Aspsp {
  return {
    name: bank.name,
    country: bank.country,
    bic: bank.bic,
    psuTypes: [...bank.psuTypes],
    maxConsentDays: bank.maxConsentDays,
    requiredPsuHeaders: [...(bank.requiredPsuHeaders ?? [])],
    testOnly:
      "scenario" in bank ||
      "consentMinutes" in bank ||
      "requiredPsuHeaders" in bank ||
      "pendingCardPayments" in bank,
  };
}

/**
 * The banks a counterparty's account is drawn at (drafts.ts): not the pending card payments
 * scenario, which came later, so that adding it left every other bank's statements as they were.
 */
export const COUNTERPARTY_BANKS: readonly SandboxBank[] = SANDBOX_BANKS.filter(
  (bank: SandboxBank) => !bank.pendingCardPayments,
);

/** Enable Banking identifies a bank by name and country. */
export function findSandboxBank(aspsp: { name: string; country: string }): SandboxBank | null {
  const country = aspsp.country.toUpperCase();
  return SANDBOX_BANKS.find((bank) => bank.name === aspsp.name && bank.country === country) ?? null;
}

export function findSandboxBankById(id: string): SandboxBank | null {
  return SANDBOX_BANKS.find((bank) => bank.id === id) ?? null;
}
