import pg from "pg";
import { JOBS_SCHEMA, QUEUES } from "../../lib/jobs/runtime";
import { uniqueEmail } from "../../test/oauth-fixtures";
import type { SmtpRefusal, SmtpRelay } from "../../test/smtp-relay";
import { Browser, formFor, redirectOf } from "./browser";
import { clientAddress, upstreamOf } from "./http";
import type { ClusterContext } from "./types";

/**
 * The background job queue across instances (docs/operations.md#background-jobs),
 * on a cluster whose instances run the every-minute probe schedule
 * (JOBS_CLUSTER_PROBE=true) and send mail through a real SMTP relay in this
 * process: each minute's probe job runs once, on one instance, and a sign-in
 * mail asked for through nginx, refused once by the relay for now, is
 * delivered once by whichever instance takes the queued job.
 */

const POLL_MS = 500;

async function rows<T extends pg.QueryResultRow>(
  databaseUrl: string,
  text: string,
  values: unknown[],
): Promise<T[]> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    return (await client.query<T>(text, values)).rows;
  } finally {
    await client.end();
  }
}

interface ProbeJob {
  id: string;
  state: string;
  retry_count: number;
  minute: string;
  instance: string | null;
}

const probeJobs = (databaseUrl: string) =>
  rows<ProbeJob>(
    databaseUrl,
    `SELECT id::text, state::text, retry_count,
        to_char(date_trunc('minute', created_on), 'HH24:MI') AS minute,
        output->>'instance' AS instance
      FROM ${JOBS_SCHEMA}.job WHERE name = $1 ORDER BY created_on`,
    [QUEUES.clusterProbe],
  );

/** The probe schedule's jobs over `minutes` occurrences: one job a minute, each run once. */
export async function scheduledJobRunsOnce(
  context: ClusterContext,
  databaseUrl: string,
  minutes: number,
): Promise<void> {
  const { check, log } = context;
  const deadline = Date.now() + (minutes + 1) * 60_000;
  let jobs = await probeJobs(databaseUrl);
  while (jobs.filter((job) => job.state === "completed").length < minutes) {
    if (Date.now() > deadline) break;
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
    jobs = await probeJobs(databaseUrl);
  }
  // Long enough for another instance's duplicate, had there been one, to be sent and run.
  await new Promise((resolve) => setTimeout(resolve, 10_000));
  jobs = await probeJobs(databaseUrl);
  const completed = jobs.filter((job) => job.state === "completed");
  check(
    completed.length >= minutes,
    `${completed.length} probe job(s) completed in ${minutes + 1} minutes`,
  );
  const perMinute = new Map<string, number>();
  for (const job of jobs) perMinute.set(job.minute, (perMinute.get(job.minute) ?? 0) + 1);
  const doubled = [...perMinute].filter(([, count]) => count > 1);
  check(doubled.length === 0, `minutes with more than one probe job: ${JSON.stringify(doubled)}`);
  check(
    completed.every((job) => job.retry_count === 0 && job.instance),
    "a probe job was tried more than once or names no instance",
  );
  const schedules = await rows<{ name: string; count: number }>(
    databaseUrl,
    `SELECT name, count(*)::int AS count FROM ${JOBS_SCHEMA}.schedule GROUP BY name ORDER BY name`,
    [],
  );
  // The service's schedules and the probe, each stored once however many instances made them.
  const expected = [
    QUEUES.clusterProbe,
    QUEUES.consents,
    QUEUES.janitor,
    QUEUES.webhookSweep,
  ].sort();
  check(
    JSON.stringify(schedules.map((schedule) => schedule.name).sort()) ===
      JSON.stringify(expected) && schedules.every((schedule) => schedule.count === 1),
    `schedules: ${JSON.stringify(schedules)}, expected one row each of ${expected.join(", ")}`,
  );
  log(
    `${completed.length} minutes, one probe job each, run by ${completed.map((job) => job.instance).join(", ")}`,
  );
  log(`schedules, one row each: ${schedules.map((schedule) => schedule.name).join(", ")}`);
}

/** Scripts the relay: what it answers to each RCPT TO, and how often it was asked. */
export class RelayScript {
  asked = 0;
  private readonly answers: SmtpRefusal[] = [];

  /** The relay's refusal hook (startSmtpRelay). */
  readonly next = (): SmtpRefusal => {
    this.asked += 1;
    return this.answers.shift() ?? null;
  };

  refuse(...answers: SmtpRefusal[]): void {
    this.answers.push(...answers);
  }
}

/** A sign-in mail asked for through nginx while the relay greylists: delivered once, later. */
export async function mailQueuedThroughProxy(
  context: ClusterContext,
  relay: SmtpRelay,
  script: RelayScript,
  databaseUrl: string,
): Promise<void> {
  const { proxy, check, log } = context;
  const email = uniqueEmail("cluster-greylisted");
  const since = new Date();
  script.refuse({ code: 451, message: "4.7.1 Greylisted, please try again later" });
  const browser = new Browser(proxy, clientAddress());
  const login = await browser.get(proxy, "/login?returnUrl=%2Fdashboard");
  check(login.status === 200, `the login screen answered ${login.status}`);
  const form = formFor(login.body, "/login/request");
  const sent = await browser.post(proxy, "/login/request", { ...form.fields, email });
  const landing = new URL(redirectOf(sent, "sign-in mail"), proxy);
  check(
    landing.searchParams.get("sent") === "1",
    `the sign-in answered ${landing.pathname}${landing.search}, not "sent"`,
  );
  const askedBefore = script.asked;
  const deadline = Date.now() + 90_000;
  while (!relay.delivered.has(email) && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
  check(relay.delivered.has(email), "the greylisted sign-in mail was never delivered");
  const waited = ((Date.now() - since.getTime()) / 1000).toFixed(1);
  await new Promise((resolve) => setTimeout(resolve, 5000));
  // Once refused inside the request, once taken from the queue: nothing more.
  check(script.asked === 2, `the relay was asked ${script.asked} times, not 2`);
  const code = /^\d{6}$/m.exec(relay.delivered.get(email) ?? "")?.[0];
  check(Boolean(code), "the delivered mail has no code");
  const jobs = await rows<{ state: string; retry_count: number }>(
    databaseUrl,
    `SELECT state::text, retry_count FROM ${JOBS_SCHEMA}.job WHERE name = $1 AND created_on >= $2`,
    [QUEUES.mail, since],
  );
  check(
    jobs.length === 1 && jobs[0]?.state === "completed" && jobs[0].retry_count === 0,
    `mail jobs: ${JSON.stringify(jobs)}`,
  );
  log(
    `asked through nginx on ${upstreamOf(sent)}: refused (451) at once, queued, delivered once ${waited} s later (${askedBefore} + ${script.asked - askedBefore} RCPT TO)`,
  );
}
