import { afterEach, describe, expect, it } from "vitest";
import { setSetting } from "../env";
import {
  attemptTimeoutMs,
  DEFAULT_ATTEMPT_TIMEOUT_MS,
  DEFAULT_RETRY_SCHEDULE_SECONDS,
  retrySchedule,
} from "./settings";

afterEach(() => {
  setSetting("WEBHOOKS_RETRY_SCHEDULE", "");
  setSetting("WEBHOOKS_ATTEMPT_TIMEOUT_MS", "");
  setSetting("ISSUER", "http://localhost:3000");
});

describe("webhook delivery settings", () => {
  it("retries with growing waits over about three days by default, 10 s per attempt", () => {
    expect(retrySchedule()).toEqual(DEFAULT_RETRY_SCHEDULE_SECONDS);
    const hours = DEFAULT_RETRY_SCHEDULE_SECONDS.reduce((sum, wait) => sum + wait, 0) / 3600;
    expect(hours).toBeGreaterThan(70);
    expect(hours).toBeLessThan(73);
    const waits = [...DEFAULT_RETRY_SCHEDULE_SECONDS];
    expect(waits).toEqual([...waits].sort((a, b) => a - b));
    expect(attemptTimeoutMs()).toBe(DEFAULT_ATTEMPT_TIMEOUT_MS);
    expect(DEFAULT_ATTEMPT_TIMEOUT_MS).toBe(10_000);
  });

  it("takes a schedule of seconds in a local run only, and a bounded attempt time", () => {
    setSetting("WEBHOOKS_RETRY_SCHEDULE", "1, 2,3");
    expect(retrySchedule()).toEqual([1, 2, 3]);
    setSetting("WEBHOOKS_RETRY_SCHEDULE", "1,soon");
    expect(retrySchedule()).toEqual(DEFAULT_RETRY_SCHEDULE_SECONDS);
    setSetting("WEBHOOKS_RETRY_SCHEDULE", "1,2");
    setSetting("ISSUER", "https://connect.example.com");
    expect(retrySchedule()).toEqual(DEFAULT_RETRY_SCHEDULE_SECONDS);
    setSetting("WEBHOOKS_ATTEMPT_TIMEOUT_MS", "2500");
    expect(attemptTimeoutMs()).toBe(2500);
    setSetting("WEBHOOKS_ATTEMPT_TIMEOUT_MS", "600000");
    expect(attemptTimeoutMs()).toBe(DEFAULT_ATTEMPT_TIMEOUT_MS);
  });
});
