import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { newBrowserNonce, requestLoginChallenge, verifyLoginPin } from "../auth/login-challenges";
import { db, disconnectDb } from "../db/client";
import { getEnv, setSetting } from "../env";
import { MailError } from "../mail";
import { uniqueEmail } from "../../test/oauth-fixtures";
import { startSmtpRelay, type SmtpRefusal, type SmtpRelay } from "../../test/smtp-relay";
import { startJobs, stopJobs } from "./boss";
import { jobsRuntime, JOBS_SCHEMA, QUEUES } from "./runtime";
import { jobsStatus } from "./status";

/**
 * Mail through the job queue against a real SMTP relay on loopback
 * (smtp-server, RFC 5321) and the test run's PostgreSQL: the relay answers
 * each recipient as the test scripts it, per address, and counts every
 * RCPT TO it was asked, so a second delivery (or a try too many) shows.
 */

const scripts = new Map<string, SmtpRefusal[]>();
const asked = new Map<string, number>();
let current = "";
let relay: SmtpRelay;

const GREYLISTED = { code: 451, message: "4.7.1 Greylisted, please try again later" };
const NO_MAILBOX = { code: 550, message: "5.1.1 No such mailbox" };

beforeAll(async () => {
  relay = await startSmtpRelay(() => {
    // smtp-server does not hand the address to this hook: the test sends one mail at a time.
    const to = current;
    asked.set(to, (asked.get(to) ?? 0) + 1);
    return scripts.get(to)?.shift() ?? null;
  });
  setSetting("SMTP_URL", `smtp://127.0.0.1:${relay.port}`);
  await startJobs({
    databaseUrl: getEnv().databaseUrl,
    mailRetry: { delaySeconds: 1, maxDelaySeconds: 2, limit: 3 },
    pollingIntervalSeconds: 0.5,
  });
});

afterAll(async () => {
  await stopJobs();
  await relay.close();
  await disconnectDb();
});

const uniqueIp = () => `192.0.2.${randomBytes(1)[0]}-${randomBytes(4).toString("hex")}`;

function signInRequest(email: string) {
  return {
    email,
    locale: "en" as const,
    partnerName: null,
    flowId: null,
    returnUrl: null,
    browserNonce: newBrowserNonce(),
    clientIp: uniqueIp(),
  };
}

interface MailJobRow {
  id: string;
  state: string;
  retry_count: number;
  data: string;
  output: { outcome?: string; reason?: string } | null;
}

async function mailJobs(since: Date): Promise<MailJobRow[]> {
  return db().$queryRawUnsafe<MailJobRow[]>(
    `SELECT id::text, state::text, retry_count, data::text, output FROM ${JOBS_SCHEMA}.job
      WHERE name = $1 AND created_on >= $2 ORDER BY created_on`,
    QUEUES.mail,
    since,
  );
}

async function until<T>(read: () => Promise<T>, done: (value: T) => boolean, ms = 20_000) {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await read();
    if (done(value) || Date.now() > deadline) return value;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

describe("mail through the job queue", () => {
  it("a relay answering 4xx then 250 delivers the sign-in mail exactly once, and its code signs in", async () => {
    expect(jobsRuntime()).not.toBeNull();
    const since = new Date(Date.now() - 1000);
    const email = uniqueEmail("greylisted");
    current = email;
    scripts.set(email, [GREYLISTED]);
    const request = signInRequest(email);

    // The first try, inside the request, is refused for now: the person is told the mail is on its way.
    expect(await requestLoginChallenge(request)).toEqual({ status: "sent" });
    expect(relay.delivered.has(email)).toBe(false);

    const [job] = await until(
      () => mailJobs(since),
      (jobs) => jobs[0]?.state === "completed",
    );
    expect(job).toMatchObject({ state: "completed", retry_count: 0, output: { outcome: "sent" } });
    const text = relay.delivered.get(email) ?? "";
    const code = /^\d{6}$/m.exec(text)?.[0] ?? "";
    expect(code).toMatch(/^\d{6}$/);
    // The queued job holds neither the address nor the code nor the link in the clear.
    expect(job!.data).not.toContain(email);
    expect(job!.data).not.toContain(code);
    expect(job!.data).not.toContain("token=");

    // Long enough for a duplicate try to show: the relay was asked twice, once refusing, once taking it.
    await new Promise((resolve) => setTimeout(resolve, 3000));
    expect(asked.get(email)).toBe(2);
    expect(await mailJobs(since)).toHaveLength(1);

    expect(await verifyLoginPin({ ...request, pin: code })).toMatchObject({ status: "ok" });
  });

  it("a permanent refusal on a later try is not tried again and shows as failed", async () => {
    const since = new Date(Date.now() - 1000);
    const email = uniqueEmail("gone-later");
    current = email;
    scripts.set(email, [GREYLISTED, NO_MAILBOX, null]);

    expect(await requestLoginChallenge(signInRequest(email))).toEqual({ status: "sent" });
    const [job] = await until(
      () => mailJobs(since),
      (jobs) => jobs[0]?.state === "failed",
    );
    expect(job).toMatchObject({
      state: "failed",
      retry_count: 0,
      output: { outcome: "refused", reason: "rejected" },
    });
    await new Promise((resolve) => setTimeout(resolve, 3000));
    // Asked twice: the request's try and the queued one; the third answer (accept) was never reached.
    expect(asked.get(email)).toBe(2);
    expect(relay.delivered.has(email)).toBe(false);

    const mail = (await jobsStatus(jobsRuntime()!.boss)).find((row) => row.queue === QUEUES.mail);
    expect(mail?.failed_recently).toBeGreaterThanOrEqual(1);
  });

  it("a permanent refusal at once is the request's failure: nothing is queued", async () => {
    const since = new Date(Date.now() - 1000);
    const email = uniqueEmail("no-mailbox");
    current = email;
    scripts.set(email, [NO_MAILBOX]);
    const error: unknown = await requestLoginChallenge(signInRequest(email)).catch(
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(MailError);
    expect((error as MailError).code).toBe("rejected");
    expect(await mailJobs(since)).toHaveLength(0);
    expect(asked.get(email)).toBe(1);
  });

  it("a relay that stays greylisting is tried with growing waits until the last try, then failed", async () => {
    const since = new Date(Date.now() - 1000);
    const email = uniqueEmail("always-busy");
    current = email;
    scripts.set(
      email,
      Array.from({ length: 10 }, () => GREYLISTED),
    );

    expect(await requestLoginChallenge(signInRequest(email))).toEqual({ status: "sent" });
    const [job] = await until(
      () => mailJobs(since),
      (jobs) => jobs[0]?.state === "failed",
      40_000,
    );
    // The request's try, the queued job's first and its three retries (the limit), each refused.
    expect(job).toMatchObject({
      state: "failed",
      retry_count: 3,
      output: { outcome: "unavailable" },
    });
    expect(asked.get(email)).toBe(5);
    expect(relay.delivered.has(email)).toBe(false);
  }, 60_000);
});
