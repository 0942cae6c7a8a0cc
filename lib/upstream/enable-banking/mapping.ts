import {
  PSU_TYPES,
  type Aspsp,
  type PsuType,
  type UpstreamAccount,
  type UpstreamBalance,
  type UpstreamSession,
} from "../types";
import type {
  AccountResource,
  BalanceResource,
  SessionResponse,
  aspspListSchema,
  genericIdentificationSchema,
} from "./wire";
import type { z } from "zod";
import { normalizeRequiredPsuHeaders } from "../psu-headers";

/**
 * Enable Banking JSON → the upstream interface's camelCase shapes
 * (docs/architecture.md#upstream-aggregators), field by field. Transactions have their own file (transactions.ts).
 */

const DAY_SECONDS = 24 * 60 * 60;
/** PSD2's usual consent length, for a bank that does not state its maximum. */
export const DEFAULT_MAX_CONSENT_DAYS = 90;

type GenericIdentification = z.infer<typeof genericIdentificationSchema>;
type AspspResource = z.infer<typeof aspspListSchema>["aspsps"][number];

export const orNull = (value: string | null | undefined): string | null =>
  value === undefined || value === null || value.trim() === "" ? null : value;

const isPsuType = (value: string): value is PsuType =>
  (PSU_TYPES as readonly string[]).includes(value);

/** A money amount as our types keep it: a decimal string without a leading `+`. */
export const toSignedDecimal = (amount: string) => amount.replace(/^\+/, "");

/** `YYYY-MM-DD`, also from a bank that sends a full timestamp; null when unreadable. */
export function toIsoDay(value: string | null | undefined): string | null {
  const day = /^(\d{4}-\d{2}-\d{2})/.exec(value ?? "")?.[1];
  return day ?? null;
}

export function toAspsp(resource: AspspResource): Aspsp {
  const seconds = resource.maximum_consent_validity;
  return {
    name: resource.name,
    country: resource.country.toUpperCase(),
    bic: orNull(resource.bic),
    logo: orNull(resource.logo),
    beta: resource.beta === true,
    psuTypes: (resource.psu_types ?? []).filter(isPsuType),
    // Whole days, rounded down: asking for more than the bank grants fails the consent.
    maxConsentDays:
      typeof seconds === "number" && seconds > 0
        ? Math.floor(seconds / DAY_SECONDS)
        : DEFAULT_MAX_CONSENT_DAYS,
    requiredPsuHeaders: normalizeRequiredPsuHeaders(
      (resource.required_psu_headers ?? []).filter((name) => typeof name === "string"),
    ),
  };
}

/** The identification of `scheme` (e.g. `BBAN`) among an account's ids. */
export function findIdentification(
  ids: (GenericIdentification | null | undefined)[],
  scheme: string,
): string | null {
  const found = ids.find((id) => id?.scheme_name?.toUpperCase() === scheme);
  return orNull(found?.identification);
}

/**
 * An account of a session. Enable Banking's `name` is the holder's name
 * (→ `ownerName`); `details` is the account's description, set by the user or
 * the bank, and is the best account name, with the bank's `product` name as
 * the fallback (→ `accountName`). Enable Banking has no separate nickname, so
 * `displayName` stays null (a user can name the account here).
 */
export function toUpstreamAccount(resource: AccountResource & { uid: string }): UpstreamAccount {
  const ids = [resource.account_id?.other, ...(resource.all_account_ids ?? [])];
  return {
    uid: resource.uid,
    currency: resource.currency.toUpperCase(),
    accountType: orNull(resource.cash_account_type),
    bic: orNull(resource.account_servicer?.bic_fi),
    ownerName: orNull(resource.name),
    iban: orNull(resource.account_id?.iban) ?? findIdentification(ids, "IBAN"),
    bban: findIdentification(ids, "BBAN"),
    accountName: orNull(resource.details) ?? orNull(resource.product),
    product: orNull(resource.product),
    displayName: null,
  };
}

/** Returns null when the body is not a session we can use (unknown PSU type, bad date). */
export function toUpstreamSession(response: SessionResponse): UpstreamSession | null {
  const validUntil = new Date(response.access.valid_until);
  if (!isPsuType(response.psu_type) || Number.isNaN(validUntil.getTime())) return null;
  return {
    sessionId: response.session_id,
    aspsp: { name: response.aspsp.name, country: response.aspsp.country.toUpperCase() },
    psuType: response.psu_type,
    validUntil,
    // An account without a uid cannot be read through this session.
    accounts: response.accounts
      .filter((account): account is AccountResource & { uid: string } => !!orNull(account.uid))
      .map(toUpstreamAccount),
  };
}

export function toUpstreamBalance(resource: BalanceResource): UpstreamBalance {
  return {
    // ISO 20022 `OTHR` for a bank that does not say which balance it is.
    balanceType: orNull(resource.balance_type) ?? "OTHR",
    amount: toSignedDecimal(resource.balance_amount.amount),
    currency: resource.balance_amount.currency.toUpperCase(),
    referenceDate: toIsoDay(resource.reference_date),
    name: orNull(resource.name),
  };
}
