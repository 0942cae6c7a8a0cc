/**
 * Decoding JSON the way Go's encoding/json decodes it into typed structs, for
 * the tests that replay the published Go client and command-line client: a
 * value of the wrong JSON type for its field fails the decode (a number where
 * a string is expected, a string where an int64 is, a fraction into an
 * integer), as `json.Unmarshal` fails. Like Go, `null` leaves a field at its
 * zero value, unknown keys are ignored and a key matches its field exactly or
 * else case-insensitively.
 */

export type GoType =
  "string" | "int64" | "bool" | { slice: GoType } | { struct: Record<string, GoType> };

export class GoDecodeError extends Error {
  constructor(path: string, expected: string, value: unknown) {
    super(`json: cannot unmarshal ${jsonKind(value)} into Go value of type ${expected} at ${path}`);
    this.name = "GoDecodeError";
  }
}

function jsonKind(value: unknown): string {
  if (Array.isArray(value)) return "array";
  if (value === null) return "null";
  return typeof value === "object" ? "object" : typeof value;
}

const typeName = (type: GoType): string =>
  typeof type === "string" ? type : "slice" in type ? `[]${typeName(type.slice)}` : "struct";

/** Throws GoDecodeError where Go's json.Unmarshal of `value` into `type` would fail. */
export function decodeAsGo(value: unknown, type: GoType, path = "$"): void {
  if (value === null) return;
  if (type === "string") {
    if (typeof value !== "string") throw new GoDecodeError(path, "string", value);
  } else if (type === "bool") {
    if (typeof value !== "boolean") throw new GoDecodeError(path, "bool", value);
  } else if (type === "int64") {
    if (
      typeof value !== "number" ||
      !Number.isInteger(value) ||
      Math.abs(value) > Number.MAX_SAFE_INTEGER
    ) {
      throw new GoDecodeError(path, "int64", value);
    }
  } else if ("slice" in type) {
    if (!Array.isArray(value)) throw new GoDecodeError(path, typeName(type), value);
    value.forEach((item, index) => decodeAsGo(item, type.slice, `${path}[${index}]`));
  } else {
    if (typeof value !== "object" || Array.isArray(value)) {
      throw new GoDecodeError(path, "struct", value);
    }
    const fields = Object.entries(type.struct);
    for (const [key, item] of Object.entries(value)) {
      const field =
        fields.find(([name]) => name === key) ??
        fields.find(([name]) => name.toLowerCase() === key.toLowerCase());
      if (field) decodeAsGo(item, field[1], `${path}.${key}`);
    }
  }
}

/** The keys a struct's decoding relies on: each must be sent under its exact name. */
export function missingKeys(value: unknown, keys: readonly string[]): string[] {
  if (typeof value !== "object" || value === null) return [...keys];
  return keys.filter((key) => !Object.hasOwn(value, key));
}

// The Go client's wire types (its json tags), as it declares them.

export const GO_CLI_TOKEN: GoType = {
  struct: { apiKey: "string", apiBaseUrl: "string", user: "string", prefix: "string" },
};

const balanceWire: GoType = {
  struct: { type: "string", currency: "string", referenceDate: "string", enc: "string" },
};

export const GO_ACCOUNTS: GoType = {
  slice: {
    struct: {
      id: "string",
      aspspName: "string",
      aspspCountry: "string",
      currency: "string",
      accountType: "string",
      bic: "string",
      needsReconnect: "bool",
      balances: { slice: balanceWire },
      enc: "string",
      displayNameEnc: "string",
      uidEnc: "string",
    },
  },
};

export const GO_TRANSACTION_PAGE: GoType = {
  struct: {
    items: {
      slice: {
        struct: {
          id: "string",
          currency: "string",
          creditDebitIndicator: "string",
          status: "string",
          bookingDate: "string",
          valueDate: "string",
          transactionDate: "string",
          bankTransactionCode: "string",
          enc: "string",
        },
      },
    },
    total: "int64",
  },
};

export const GO_CONNECTIONS: GoType = {
  slice: {
    struct: {
      sessionId: "string",
      aspspName: "string",
      aspspCountry: "string",
      validUntil: "string",
      status: "string",
      accountCount: "int64",
      lastSyncedAt: "string",
      psuType: "string",
    },
  },
};

export const GO_BANKS: GoType = {
  slice: {
    struct: {
      name: "string",
      country: "string",
      logo: "string",
      bic: "string",
      beta: "bool",
      psuTypes: { slice: "string" },
    },
  },
};

export const GO_AUTHORIZATION_URL: GoType = { struct: { url: "string" } };

export const GO_SYNC_RESULT: GoType = {
  struct: { newTransactions: "int64", totalFetched: "int64" },
};

export const GO_SYNC_ALL_RESULT: GoType = {
  struct: { accounts: "int64", newTransactions: "int64" },
};

/** The decrypted envelope payloads (the camelCase contract), all strings in Go. */
export const GO_ACCOUNT_ENC: GoType = {
  struct: {
    ownerName: "string",
    iban: "string",
    bban: "string",
    accountName: "string",
    product: "string",
  },
};
export const GO_UID_ENC: GoType = { struct: { uid: "string" } };
export const GO_BALANCE_ENC: GoType = { struct: { amount: "string", name: "string" } };
export const GO_TRANSACTION_ENC: GoType = {
  struct: {
    amount: "string",
    creditorName: "string",
    creditorIban: "string",
    creditorBban: "string",
    creditorAgentBic: "string",
    debtorName: "string",
    debtorIban: "string",
    debtorBban: "string",
    debtorAgentBic: "string",
    remittanceInformation: "string",
    note: "string",
    referenceNumber: "string",
    exchangeRate: "string",
    merchantCategoryCode: "string",
    balanceAfter: "string",
    balanceAfterCurrency: "string",
  },
};

/** The credentials file `key import` reads (the developer export on My access). */
export const GO_CREDENTIALS_BUNDLE: GoType = {
  struct: {
    service: "string",
    apiBaseUrl: "string",
    user: "string",
    apiKey: "string",
    encryptionKey: {
      struct: {
        scheme: "string",
        curve: "string",
        privateKeyFormat: "string",
        privateKey: "string",
        publicKey: "string",
      },
    },
  },
};
