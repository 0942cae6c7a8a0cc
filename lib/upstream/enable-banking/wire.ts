import { z } from "zod";
import { toUnexpectedBodyError } from "./errors";

/**
 * Enable Banking's JSON, as far as the connector reads it (snake_case stays
 * here, at the edge: docs/architecture.md#names-and-the-edge). Fields a bank may leave out are
 * `nullish`; unknown fields are ignored. Parsing failures name the field path,
 * never its value.
 */

const optionalText = z.string().nullish();

/**
 * A transaction field that carries neither money nor the transaction's
 * identity, which a real bank may send in another shape than the reference's
 * (a number for a text, a bare value for an object, an object with a
 * non-numeric rate): what cannot be read is null, and the transaction is
 * still stored, its `rawJson` keeping exactly what the bank sent (/docs/data).
 * Money, identity, direction, status and the booking date stay strict: a
 * transaction whose amount cannot be read is not stored with a guess.
 */
const lenient = <T extends z.ZodType>(schema: T) => schema.nullish().catch(null);

/** A text a bank may send as a number (a code, a reference): only whole numbers read exactly. */
const lenientText = lenient(z.union([z.string(), z.int().transform(String)]));

/** Enable Banking sends amounts as decimal strings; a number is tolerated. */
const decimalSchema = z
  .union([z.string(), z.number()])
  .transform((value) => String(value).trim())
  .refine((value) => /^[+-]?\d+(\.\d+)?$/.test(value), "not a decimal amount");

const amountSchema = z.object({ amount: decimalSchema, currency: z.string() });

export const genericIdentificationSchema = z.object({
  identification: z.string(),
  scheme_name: optionalText,
});

export const accountIdentificationSchema = z.object({
  iban: optionalText,
  other: genericIdentificationSchema.nullish(),
});

const agentSchema = z.object({ bic_fi: optionalText });

export const aspspListSchema = z.object({
  aspsps: z.array(
    z.object({
      name: z.string(),
      country: z.string(),
      bic: optionalText,
      logo: optionalText,
      beta: z.boolean().nullish(),
      psu_types: z.array(z.string()).nullish(),
      /** Seconds. */
      maximum_consent_validity: z.number().nullish(),
      /** e.g. `["psu-ip-address", "psu-user-agent"]`; what is not a string is left out later. */
      required_psu_headers: z.array(z.unknown()).nullish(),
    }),
  ),
});

export const authResponseSchema = z.object({ url: z.string(), authorization_id: z.string() });

export const accountResourceSchema = z.object({
  /** Absent for an account the session cannot read. */
  uid: optionalText,
  currency: z.string(),
  cash_account_type: optionalText,
  account_id: accountIdentificationSchema.nullish(),
  all_account_ids: z.array(genericIdentificationSchema).nullish(),
  account_servicer: agentSchema.nullish(),
  /** The account holder's name. */
  name: optionalText,
  /** A description of the account, set by the user or the bank. */
  details: optionalText,
  /** The bank's product name. */
  product: optionalText,
  usage: optionalText,
});
export type AccountResource = z.infer<typeof accountResourceSchema>;

export const sessionResponseSchema = z.object({
  session_id: z.string(),
  aspsp: z.object({ name: z.string(), country: z.string() }),
  psu_type: z.string(),
  access: z.object({ valid_until: z.string() }),
  accounts: z.array(accountResourceSchema),
});
export type SessionResponse = z.infer<typeof sessionResponseSchema>;

export const balancesResponseSchema = z.object({
  balances: z.array(
    z.object({
      name: optionalText,
      balance_amount: amountSchema,
      balance_type: optionalText,
      reference_date: optionalText,
    }),
  ),
});
export type BalanceResource = z.infer<typeof balancesResponseSchema>["balances"][number];

/** Transactions are parsed one by one, so that each keeps its own JSON (`rawJson`). */
export const transactionsResponseSchema = z.object({
  transactions: z.array(z.unknown()),
  continuation_key: optionalText,
});

/** A counterparty (`creditor`, `debtor`), of which the name is mapped. */
const lenientPartySchema = lenient(z.object({ name: lenient(z.string()) }));
const lenientAgentSchema = lenient(z.object({ bic_fi: lenient(z.string()) }));

/** A counterparty's account, read leniently (`lenient`): one unreadable part is null. */
const lenientAccountSchema = lenient(
  z.object({
    iban: lenient(z.string()),
    other: lenient(genericIdentificationSchema),
  }),
);

/**
 * The reference's exchange rate, an object (`unit_currency`, `exchange_rate`,
 * `rate_type`, `contract_identification`, `instructed_amount`) of which the
 * rate is mapped. A bank that sends the rate bare (a number or a decimal
 * string) means that rate; any other shape, or a rate that is not a decimal,
 * reads as no rate.
 */
const exchangeRateSchema = lenient(
  z.union([
    z.object({ exchange_rate: lenient(decimalSchema) }),
    decimalSchema.transform((rate) => ({ exchange_rate: rate })),
  ]),
);

export const transactionSchema = z.object({
  entry_reference: optionalText,
  transaction_id: optionalText,
  transaction_amount: amountSchema,
  creditor: lenientPartySchema,
  creditor_account: lenientAccountSchema,
  creditor_agent: lenientAgentSchema,
  debtor: lenientPartySchema,
  debtor_account: lenientAccountSchema,
  debtor_agent: lenientAgentSchema,
  // The reference's `bank_transaction_code` is `{description, code, sub_code}`; ISO 20022 adds a domain.
  bank_transaction_code: lenient(
    z.union([
      z.string(),
      z.object({
        domain: lenientText,
        code: lenientText,
        sub_code: lenientText,
        description: lenient(z.string()),
      }),
    ]),
  ),
  credit_debit_indicator: optionalText,
  status: optionalText,
  booking_date: optionalText,
  value_date: lenient(z.string()),
  transaction_date: lenient(z.string()),
  balance_after_transaction: lenient(amountSchema),
  reference_number: lenientText,
  // Lines that are not text are left out of the mapped remittance (`rawJson` has them).
  remittance_information: lenient(
    z.union([
      z
        .array(z.unknown())
        .transform((lines) => lines.filter((line): line is string => typeof line === "string")),
      z.string(),
    ]),
  ),
  note: lenient(z.string()),
  merchant_category_code: lenientText,
  exchange_rate: exchangeRateSchema,
});
export type TransactionResource = z.infer<typeof transactionSchema>;

export const applicationResponseSchema = z.object({
  active: z.boolean().nullish(),
  /** The URLs registered for the browser's way back from a consent; non-strings are left out. */
  redirect_urls: z.array(z.unknown()).nullish(),
});

/** Parse, don't validate (docs/architecture.md#parse-dont-validate): a body that does not fit is the bank's error. */
export function parseWire<T>(schema: z.ZodType<T>, value: unknown, route: string): T {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const where = result.error.issues[0]?.path.map(String).join(".") ?? "";
  throw toUnexpectedBodyError(route, where);
}
