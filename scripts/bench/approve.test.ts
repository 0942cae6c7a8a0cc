import { describe, expect, it } from "vitest";
import { summarizeApprovals } from "./approve";

describe("the Approve row of the benchmark", () => {
  it("shows each figure's own median, not one sample's", () => {
    const summary = summarizeApprovals([
      { toProgressMs: 40, toConsentMs: 200, toHistoryMs: 600, transactions: 2_400 },
      { toProgressMs: 60, toConsentMs: 300, toHistoryMs: 400, transactions: 2_500 },
      { toProgressMs: 50, toConsentMs: 250, toHistoryMs: 500, transactions: 2_600 },
    ]);
    expect(summary).toEqual({
      toProgressMs: 50,
      toConsentMs: 250,
      toHistoryMs: 500,
      transactions: 2_500,
      // 4 000, 6 250 and 5 200 transactions/s.
      ingestRate: 5_200,
    });
  });

  it("takes the mean of the middle two of an even count", () => {
    const summary = summarizeApprovals([
      { toProgressMs: 10, toConsentMs: 100, toHistoryMs: 400, transactions: 2_000 },
      { toProgressMs: 30, toConsentMs: 300, toHistoryMs: 500, transactions: 2_000 },
    ]);
    expect(summary.toConsentMs).toBe(200);
    expect(summary.ingestRate).toBe(4_500);
  });
});
