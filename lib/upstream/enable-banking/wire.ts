import { z } from "zod";
import { toUnexpectedBodyError } from "./errors";

/**
 * Enable Banking's JSON, as far as the connector reads it (snake_case stays
 * here, at the edge: docs/architecture.md#names-and-the-edge). Fields a bank may leave out are
 * `nullish`; unknown fields are ignored. Parsing failures name the field path,
 * never its value.
 */

const optionalText = z.string().nullish();

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
const partySchema = z.object({ name: optionalText });

export const aspspListSchema = z.object({
  aspsps: z.array(
    z.object({
      name: z.string(),
      country: z.string(),
      bic: optionalText,
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

export const transactionSchema = z.object({
  entry_reference: optionalText,
  transaction_id: optionalText,
  transaction_amount: amountSchema,
  creditor: partySchema.nullish(),
  creditor_account: accountIdentificationSchema.nullish(),
  creditor_agent: agentSchema.nullish(),
  debtor: partySchema.nullish(),
  debtor_account: accountIdentificationSchema.nullish(),
  debtor_agent: agentSchema.nullish(),
  bank_transaction_code: z
    .union([
      z.string(),
      z.object({
        domain: optionalText,
        code: optionalText,
        sub_code: optionalText,
        description: optionalText,
      }),
    ])
    .nullish(),
  credit_debit_indicator: optionalText,
  status: optionalText,
  booking_date: optionalText,
  value_date: optionalText,
  transaction_date: optionalText,
  balance_after_transaction: amountSchema.nullish(),
  reference_number: optionalText,
  remittance_information: z.union([z.array(z.string()), z.string()]).nullish(),
  note: optionalText,
  merchant_category_code: optionalText,
  exchange_rate: z.object({ exchange_rate: decimalSchema.nullish() }).nullish(),
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
