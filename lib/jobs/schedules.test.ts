import { randomUUID } from "node:crypto";
import { afterAll, describe, expect, it } from "vitest";
import { recordAuditEvent } from "../audit/record";
import { db, disconnectDb } from "../db/client";
import { openJobData, sealJobData } from "./sealed-data";
import { JANITOR_JOB, serviceSchedules } from "./schedules";

/** The service's scheduled jobs, run as their workers run them, and the sealing of job data. */

afterAll(disconnectDb);

const DAY_MS = 24 * 60 * 60 * 1000;

describe("the service's scheduled jobs", () => {
  it("schedules the janitor every 15 minutes, consents hourly, the webhook sweep every minute, the cluster probe only when asked", () => {
    expect(serviceSchedules().map((job) => [job.queue, job.cron])).toEqual([
      ["janitor", "*/15 * * * *"],
      ["consents", "7 * * * *"],
      ["webhook-sweep", "* * * * *"],
    ]);
  });

  it("the janitor job runs the janitor, audit retention included, and reports per table", async () => {
    const clientId = `obc_jobs_${randomUUID().slice(0, 8)}`;
    const write = (at: Date) =>
      recordAuditEvent(db(), {
        type: "client.deleted",
        context: { actor: { kind: "system" }, clientIp: null },
        clientId,
        details: { name: "Retention" },
        at,
      });
    await write(new Date(Date.now() - 400 * DAY_MS));
    await write(new Date(Date.now() - 10 * DAY_MS));
    const report = (await JANITOR_JOB.run({} as never)) as { tables: Array<{ table: string }> };
    expect(report.tables.map((entry) => entry.table)).toEqual(
      expect.arrayContaining(["Flow", "LoginChallenge", "AuditEvent"]),
    );
    // The event older than the audit log's 365 days is gone, the recent one kept.
    expect(await db().auditEvent.count({ where: { clientId } })).toBe(1);
  });
});

describe("sealed job data", () => {
  const secrets = { secretKey: "k".repeat(32) + "current-secret-0123" };

  it("opens only for its own queue, under the current or the previous secret", () => {
    const sealed = sealJobData("mail", { to: "a@example.com", code: "123456" }, secrets.secretKey);
    expect(sealed).not.toContain("example");
    expect(openJobData("mail", sealed, secrets)).toEqual({ to: "a@example.com", code: "123456" });
    expect(openJobData("janitor", sealed, secrets)).toBeNull();
    const rotated = { secretKey: "n".repeat(40), previousSecretKey: secrets.secretKey };
    expect(openJobData("mail", sealed, rotated)).toEqual({ to: "a@example.com", code: "123456" });
    expect(openJobData("mail", sealed, { secretKey: "n".repeat(40) })).toBeNull();
    const flipped = `${sealed.slice(0, 20)}${sealed[20] === "A" ? "B" : "A"}${sealed.slice(21)}`;
    expect(openJobData("mail", flipped, secrets)).toBeNull();
  });
});
