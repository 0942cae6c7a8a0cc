import { describe, expect, it } from "vitest";
import { UpstreamError } from "../types";
import { CARD_PURCHASE_CODE, EXCHANGE_RATE_SHAPES } from "../../../test/fake-enable-banking";
import { toBankTransactionCode, toUpstreamTransactions } from "./transactions";

const ROUTE = "GET /accounts/{uid}/transactions";
const base = {
  transaction_amount: { amount: "10.00", currency: "DKK" },
  booking_date: "2026-11-02",
};
const mapOne = (raw: Record<string, unknown>) => toUpstreamTransactions([raw], ROUTE)[0];

describe("the entry reference and the transaction id", () => {
  it("keeps entry_reference as the reference and transaction_id apart, blank as none", () => {
    const both = mapOne({ ...base, entry_reference: "E", transaction_id: "T" });
    expect([both?.entryReference, both?.transactionId]).toEqual(["E", "T"]);
    // The reference says transaction_id may change between reads: never taken as a reference.
    const idOnly = mapOne({ ...base, entry_reference: "", transaction_id: "T" });
    expect([idOnly?.entryReference, idOnly?.transactionId]).toEqual([null, "T"]);
    expect([mapOne(base)?.entryReference, mapOne(base)?.transactionId]).toEqual([null, null]);
  });

  it("maps identical entries of one page as they are (their identities are made when stored)", () => {
    const mapped = toUpstreamTransactions([base, base, { ...base, entry_reference: "E" }], ROUTE);
    expect(mapped.map((transaction) => transaction.entryReference)).toEqual([null, null, "E"]);
  });
});

describe("status and sign", () => {
  it.each([
    ["BOOK", "BOOK"],
    ["PDNG", "PDNG"],
    ["HOLD", "PDNG"],
    ["SCHD", "PDNG"],
    ["book", "BOOK"],
  ])("status %s → %s", (status, expected) => {
    expect(mapOne({ ...base, status })?.status).toBe(expected);
  });

  it("cancelled and rejected entries are left out", () => {
    expect(
      toUpstreamTransactions(
        [
          { ...base, status: "CNCL" },
          { ...base, status: "RJCT" },
        ],
        ROUTE,
      ),
    ).toEqual([]);
  });

  it("without a known status, a booking date means booked", () => {
    expect(mapOne({ ...base, status: "OTHR" })?.status).toBe("BOOK");
    expect(mapOne({ ...base, booking_date: null })?.status).toBe("PDNG");
  });

  it("without an indicator, the amount's sign decides; the amount is unsigned", () => {
    const debit = mapOne({ ...base, transaction_amount: { amount: "-3.10", currency: "DKK" } });
    expect([debit?.creditDebitIndicator, debit?.amount]).toEqual(["DBIT", "3.10"]);
    const credit = mapOne(base);
    expect([credit?.creditDebitIndicator, credit?.amount]).toEqual(["CRDT", "10.00"]);
    const stated = mapOne({ ...base, credit_debit_indicator: "dbit" });
    expect(stated?.creditDebitIndicator).toBe("DBIT");
  });
});

describe("bank transaction code", () => {
  it("joins the parts the bank gives, or keeps a plain string", () => {
    expect(toBankTransactionCode({ domain: "PMNT", code: "RCDT", sub_code: "ESCT" })).toBe(
      "PMNT-RCDT-ESCT",
    );
    expect(toBankTransactionCode({ code: "CCRD", description: "Card" })).toBe("CCRD");
    expect(toBankTransactionCode({ description: "Card" })).toBeNull();
    expect(toBankTransactionCode(" PMNT-CCRD-POSD ")).toBe("PMNT-CCRD-POSD");
    expect(toBankTransactionCode(null)).toBeNull();
  });
});

describe("free text and dates", () => {
  it("joins remittance lines with a line break and drops blank ones", () => {
    expect(
      mapOne({ ...base, remittance_information: ["a", " ", "b"] })?.remittanceInformation,
    ).toBe("a\nb");
    expect(mapOne({ ...base, remittance_information: [] })?.remittanceInformation).toBeNull();
  });

  it("keeps the day of a bank's timestamp", () => {
    const mapped = mapOne({
      ...base,
      value_date: "2026-11-03T12:00:00+02:00",
      transaction_date: "n/a",
    });
    expect([mapped?.valueDate, mapped?.transactionDate]).toEqual(["2026-11-03", null]);
  });

  it("takes IBAN and BBAN from `other` identifications by scheme", () => {
    const mapped = mapOne({
      ...base,
      creditor_account: { other: { identification: "DK5000400440116243", scheme_name: "IBAN" } },
      debtor_account: { other: { identification: "00400440116243", scheme_name: "bban" } },
    });
    expect([
      mapped?.creditorIban,
      mapped?.creditorBban,
      mapped?.debtorIban,
      mapped?.debtorBban,
    ]).toEqual(["DK5000400440116243", null, null, "00400440116243"]);
  });
});

describe("a transaction Enable Banking would not send", () => {
  it("fails the page as a bank error naming the field", () => {
    const call = () =>
      toUpstreamTransactions(
        [{ ...base, transaction_amount: { amount: "ten", currency: "DKK" } }],
        ROUTE,
      );
    expect(call).toThrow(UpstreamError);
    expect(call).toThrow(`${ROUTE} answered an unexpected body (at transaction_amount.amount)`);
  });
});

describe("fields a bank sends in a looser shape than the reference's", () => {
  it.each(Object.entries(EXCHANGE_RATE_SHAPES))(
    "exchange_rate %s: mapped with the rate it holds, the bank's value kept in rawJson",
    (_, { sent, rate }) => {
      const raw = { ...base, exchange_rate: sent };
      const mapped = mapOne(raw);
      expect(mapped?.exchangeRate).toBe(rate);
      expect(mapped?.amount).toBe("10.00");
      expect(JSON.parse(mapped?.rawJson ?? "{}")).toEqual(raw);
    },
  );

  it("one malformed exchange_rate leaves the rest of the page as it is", () => {
    const page = [
      { ...base, entry_reference: "A", exchange_rate: EXCHANGE_RATE_SHAPES.reference?.sent },
      { ...base, entry_reference: "B", exchange_rate: EXCHANGE_RATE_SHAPES.notARate?.sent },
      { ...base, entry_reference: "C" },
    ];
    const mapped = toUpstreamTransactions(page, ROUTE);
    expect(mapped.map((t) => [t.entryReference, t.exchangeRate])).toEqual([
      ["A", "0.9234"],
      ["B", null],
      ["C", null],
    ]);
  });

  it("informational fields that cannot be read are null, never a failed page", () => {
    const raw = {
      ...base,
      creditor: { name: 42 },
      creditor_account: { iban: 1234, other: { scheme_name: "BBAN" } },
      creditor_agent: "NDEAFIHH",
      debtor: "Matti",
      debtor_account: { other: { identification: "00400440116243", scheme_name: "BBAN" } },
      debtor_agent: { bic_fi: ["NDEAFIHH"] },
      value_date: 20261102,
      transaction_date: { day: 2 },
      balance_after_transaction: { amount: "about 100", currency: "DKK" },
      reference_number: 12345,
      remittance_information: ["Invoice 7", null, 8, "Thank you"],
      note: { text: "x" },
      merchant_category_code: 5411,
    };
    const mapped = mapOne(raw);
    expect(mapped).toMatchObject({
      amount: "10.00",
      creditorName: null,
      creditorIban: null,
      creditorAgentBic: null,
      debtorName: null,
      debtorBban: "00400440116243",
      debtorAgentBic: null,
      valueDate: null,
      transactionDate: null,
      balanceAfter: null,
      referenceNumber: "12345",
      remittanceInformation: "Invoice 7\nThank you",
      note: null,
      merchantCategoryCode: "5411",
    });
    expect(JSON.parse(mapped?.rawJson ?? "{}")).toEqual(raw);
  });

  it("a reference number too long for a JSON number to hold exactly is not guessed", () => {
    expect(mapOne({ ...base, reference_number: 12345678901234567890 })?.referenceNumber).toBeNull();
  });

  it("money, direction and status stay strict: a transaction is never stored with a guess", () => {
    for (const broken of [
      { ...base, transaction_amount: { amount: 10, currency: 208 } },
      { ...base, credit_debit_indicator: 1 },
      { ...base, status: ["BOOK"] },
    ]) {
      expect(() => toUpstreamTransactions([broken], ROUTE)).toThrow(UpstreamError);
    }
  });
});

describe("the bank transaction code's parts", () => {
  it("keeps the codes in the column and leaves the description to rawJson", () => {
    const raw = { ...base, bank_transaction_code: CARD_PURCHASE_CODE };
    const mapped = mapOne(raw);
    expect(mapped?.bankTransactionCode).toBe("CCRD-POSD");
    expect(JSON.parse(mapped?.rawJson ?? "{}").bank_transaction_code).toEqual(CARD_PURCHASE_CODE);
  });

  it("never puts words into the plaintext column, and reads a numeric code", () => {
    expect(toBankTransactionCode("Card purchase at Café Noir")).toBeNull();
    expect(toBankTransactionCode({ code: "Card purchase", sub_code: "POSD" })).toBe("POSD");
    expect(toBankTransactionCode({ code: "PMNT-CCRD", sub_code: "POSD" })).toBe("PMNT-CCRD-POSD");
    expect(mapOne({ ...base, bank_transaction_code: { code: 101 } })?.bankTransactionCode).toBe(
      "101",
    );
    expect(
      mapOne({ ...base, bank_transaction_code: { code: { id: "CCRD" } } })?.bankTransactionCode,
    ).toBeNull();
    expect(mapOne({ ...base, bank_transaction_code: 7.5 })?.bankTransactionCode).toBeNull();
  });
});
