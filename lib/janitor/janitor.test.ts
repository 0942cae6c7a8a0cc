import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { useScratchDatabase, type ScratchDatabase } from "../../test/db-pressure";
import { countStatements } from "../../test/statement-counter";
import { db } from "../db/client";
import { renderMetrics } from "../metrics";
import { janitorStatus, runJanitor } from "./index";
import { DAY_MS, HOUR_MS } from "./rules";

/**
 * The janitor against the real database (docs/operations.md#cleanup-janitor),
 * a database of this file's own: the janitor counts and removes across whole
 * tables, and other test files' rows (and their own sweeps) must not change
 * what it finds. Each test works in an era of its own and passes it as `now`;
 * later tests use earlier eras, so the rows an earlier test keeps lie in
 * their future and are never due for them.
 */

let scratch: ScratchDatabase;
beforeAll(async () => {
  scratch = await useScratchDatabase("janitor");
});
afterAll(() => scratch.release());

const MINUTE_MS = 60_000;
const tag = () => randomUUID().replaceAll("-", "").slice(0, 16);
const at = (now: Date, offsetMs: number) => new Date(now.getTime() + offsetMs);

async function makeUser() {
  return db().user.create({ data: { email: `janitor-${tag()}@example.com` } });
}

async function makeClient() {
  return db().client.create({
    data: {
      id: `obc_janitor_${tag()}`,
      name: "Janitor test",
      redirectUris: ["https://janitor.example/cb"],
      secretHash: "not-a-secret",
    },
  });
}

async function makeTenant(userId: string) {
  return db().tenant.create({ data: { subject: `janitor:${tag()}`, userId } });
}

async function makeFlow(clientId: string, expiresAt: Date, userId: string | null = null) {
  return db().flow.create({
    data: {
      cookieHash: `janitor-${tag()}`,
      clientId,
      redirectUri: "https://janitor.example/cb",
      codeChallenge: "x".repeat(43),
      scope: "accounts",
      csrfSecret: tag(),
      userId,
      createdAt: at(expiresAt, -HOUR_MS),
      analyticsStart: at(expiresAt, -HOUR_MS),
      expiresAt,
    },
  });
}

async function makeAuthorization(input: {
  expiresAt: Date;
  flowId?: string | null;
  tenantId?: string | null;
}) {
  return db().bankAuthorization.create({
    data: {
      flowId: input.flowId ?? null,
      tenantId: input.tenantId ?? null,
      stateHash: `janitor-${tag()}`,
      upstream: "sandbox",
      aspspName: "Janitor Bank",
      aspspCountry: "FI",
      psuType: "personal",
      createdAt: at(input.expiresAt, -30 * MINUTE_MS),
      expiresAt: input.expiresAt,
    },
  });
}

async function makeIngest(input: {
  authorizationId: string;
  flowId?: string | null;
  state: "connecting" | "accounts" | "history" | "done" | "failed";
  heartbeatAt: Date;
}) {
  return db().bankIngest.create({
    data: {
      authorizationId: input.authorizationId,
      flowId: input.flowId ?? null,
      state: input.state,
      heartbeatAt: input.heartbeatAt,
      createdAt: at(input.heartbeatAt, -MINUTE_MS),
    },
  });
}

async function makeApiKey(input: {
  tenantId: string;
  clientId: string;
  expiresAt: Date;
  revokedAt?: Date;
}) {
  return db().apiKey.create({
    data: {
      keyHash: `janitor-${tag()}`,
      prefix: "bc_janitor__",
      tenantId: input.tenantId,
      clientId: input.clientId,
      scope: "accounts",
      createdAt: at(input.expiresAt, -365 * DAY_MS),
      expiresAt: input.expiresAt,
      revokedAt: input.revokedAt ?? null,
    },
  });
}

async function makeCode(input: {
  clientId: string;
  tenantId: string;
  expiresAt: Date;
  flowId?: string | null;
  apiKeyId?: string | null;
}) {
  return db().authorizationCode.create({
    data: {
      codeHash: `janitor-${tag()}`,
      flowId: input.flowId ?? null,
      clientId: input.clientId,
      redirectUri: "https://janitor.example/cb",
      codeChallenge: "x".repeat(43),
      scope: "accounts",
      tenantId: input.tenantId,
      issuedAt: at(input.expiresAt, -5 * MINUTE_MS),
      expiresAt: input.expiresAt,
      consumedAt: input.apiKeyId ? at(input.expiresAt, -4 * MINUTE_MS) : null,
      apiKeyId: input.apiKeyId ?? null,
    },
  });
}

const makeLoginChallenge = (expiresAt: Date) =>
  db().loginChallenge.create({
    data: {
      email: `janitor-${tag()}@example.com`,
      linkTokenHash: `janitor-${tag()}`,
      pinHash: "x",
      browserHash: "x",
      createdAt: at(expiresAt, -15 * MINUTE_MS),
      expiresAt,
    },
  });

const makeSession = (userId: string, expiresAt: Date) =>
  db().browserSession.create({
    data: { idHash: `janitor-${tag()}`, userId, createdAt: at(expiresAt, -DAY_MS), expiresAt },
  });

const makeCounter = (expiresAt: Date) =>
  db().signInCounter.create({ data: { id: `janitor:${tag()}`, count: 1, expiresAt } });

const makePinFailure = (when: Date) =>
  db().pinFailure.create({ data: { addressKey: tag(), clientKey: tag(), at: when } });

const makeClosure = (closedUntil: Date) =>
  db().pinClosure.create({ data: { addressKey: `janitor-${tag()}`, closures: 1, closedUntil } });

const makePasskeyChallenge = (expiresAt: Date) =>
  db().passkeyChallenge.create({
    data: { challenge: `janitor-${tag()}`, purpose: "authenticate", expiresAt },
  });

const makeOutboxMessage = (sentAt: Date) =>
  db().outboxMessage.create({
    data: { to: `janitor-${tag()}@example.com`, subject: "s", text: "t", html: "<p>t</p>", sentAt },
  });

/** A webhook event with one delivery that made one attempt. */
async function makeWebhookEvent(createdAt: Date) {
  const partner = await db().partner.create({ data: { name: `Janitor ${tag()}` } });
  const endpoint = await db().webhookEndpoint.create({
    data: {
      partnerId: partner.id,
      url: "https://janitor.example/hook",
      eventTypes: ["access.ended"],
      secretSealed: "not-a-secret",
    },
  });
  return db().webhookEvent.create({
    data: {
      id: `msg_${tag()}`,
      partnerId: partner.id,
      type: "access.ended",
      payload: {},
      createdAt,
      deliveries: {
        create: {
          endpointId: endpoint.id,
          createdAt,
          attempts: 1,
          attemptsLog: { create: { attempt: 1, at: createdAt, responseCode: 500 } },
        },
      },
    },
  });
}

const makeAuditEvent = (when: Date) =>
  db().auditEvent.create({
    data: { type: "partner.created", actorKind: "system", at: when, details: {} },
  });

/** Which of the rows still exist, by table and id. */
async function existing(rows: Record<string, { table: string; id: string }>) {
  const found: Record<string, boolean> = {};
  for (const [name, { table, id }] of Object.entries(rows)) {
    const delegate = (db() as unknown as Record<string, { count(args: object): Promise<number> }>)[
      table.charAt(0).toLowerCase() + table.slice(1)
    ];
    if (!delegate) throw new Error(`no table ${table}`);
    const where = table === "PinClosure" ? { addressKey: id } : { id };
    found[name] = (await delegate.count({ where })) === 1;
  }
  return found;
}

/** A counter's value in the metrics exposition (0 when absent). */
async function metricValue(series: string): Promise<number> {
  const { body } = await renderMetrics();
  const line = body.split("\n").find((text) => text.startsWith(`${series} `));
  return line ? Number(line.slice(series.length + 1)) : 0;
}

describe("janitor", () => {
  it("removes from every table the rows past their retention and keeps live ones and those just inside it; status counts what a run removes", async () => {
    const now = new Date("1990-06-01T12:00:00.000Z");
    const user = await makeUser();
    const client = await makeClient();
    const tenant = await makeTenant(user.id);
    const rows: Record<string, { table: string; id: string }> = {};
    const add = (name: string, table: string, row: { id: string }) => {
      rows[name] = { table, id: row.id };
      return row;
    };

    // Flow: 7 days after it expired; 30 days when a person signed in; never with a live ingest.
    add("flow past", "Flow", await makeFlow(client.id, at(now, -8 * DAY_MS)));
    add("flow inside", "Flow", await makeFlow(client.id, at(now, -6 * DAY_MS)));
    add("flow live", "Flow", await makeFlow(client.id, at(now, 30 * MINUTE_MS)));
    add("signed-in flow past", "Flow", await makeFlow(client.id, at(now, -31 * DAY_MS), user.id));
    add("signed-in flow inside", "Flow", await makeFlow(client.id, at(now, -29 * DAY_MS), user.id));
    const ingesting = add(
      "flow past with an ingest in progress",
      "Flow",
      await makeFlow(client.id, at(now, -40 * DAY_MS)),
    );
    const flowAuthorization = await makeAuthorization({
      flowId: ingesting.id,
      expiresAt: at(now, -25 * HOUR_MS),
    });
    add(
      "ingest in progress of a flow",
      "BankIngest",
      await makeIngest({
        authorizationId: flowAuthorization.id,
        flowId: ingesting.id,
        state: "history",
        heartbeatAt: at(now, -2_000),
      }),
    );

    // BankIngest: 24 hours after its last heartbeat, whatever its state; never one in progress.
    for (const [name, state, heartbeat] of [
      ["ingest done past", "done", -25 * HOUR_MS],
      ["ingest failed past", "failed", -25 * HOUR_MS],
      ["ingest of a dead process past", "connecting", -25 * HOUR_MS],
      ["ingest done inside", "done", -23 * HOUR_MS],
      ["ingest in progress", "connecting", -2_000],
    ] as const) {
      const authorization = await makeAuthorization({
        tenantId: tenant.id,
        expiresAt: at(now, HOUR_MS),
      });
      add(
        name,
        "BankIngest",
        await makeIngest({
          authorizationId: authorization.id,
          state,
          heartbeatAt: at(now, heartbeat),
        }),
      );
    }

    // BankAuthorization without a flow: 24 hours after it expired, never with a live ingest.
    add(
      "authorization past",
      "BankAuthorization",
      await makeAuthorization({ tenantId: tenant.id, expiresAt: at(now, -25 * HOUR_MS) }),
    );
    add(
      "authorization inside",
      "BankAuthorization",
      await makeAuthorization({ tenantId: tenant.id, expiresAt: at(now, -23 * HOUR_MS) }),
    );
    add(
      "authorization live",
      "BankAuthorization",
      await makeAuthorization({ tenantId: tenant.id, expiresAt: at(now, 10 * MINUTE_MS) }),
    );
    const busy = add(
      "authorization past with an ingest in progress",
      "BankAuthorization",
      await makeAuthorization({ tenantId: tenant.id, expiresAt: at(now, -25 * HOUR_MS) }),
    );
    await makeIngest({ authorizationId: busy.id, state: "accounts", heartbeatAt: at(now, -1_000) });
    add("authorization of a live flow", "BankAuthorization", flowAuthorization);

    // AuthorizationCode: 24 hours after it expired, with its flow, and never while its key lives.
    const code = (expiresIn: number, extra: { flowId?: string; apiKeyId?: string } = {}) =>
      makeCode({
        clientId: client.id,
        tenantId: tenant.id,
        expiresAt: at(now, expiresIn),
        ...extra,
      });
    add("code past", "AuthorizationCode", await code(-25 * HOUR_MS));
    add("code inside", "AuthorizationCode", await code(-23 * HOUR_MS));
    add("code live", "AuthorizationCode", await code(4 * MINUTE_MS));
    const liveKey = await makeApiKey({
      tenantId: tenant.id,
      clientId: client.id,
      expiresAt: at(now, 300 * DAY_MS),
    });
    add(
      "code past whose key lives",
      "AuthorizationCode",
      await code(-60 * DAY_MS, { apiKeyId: liveKey.id }),
    );
    const revokedKey = await makeApiKey({
      tenantId: tenant.id,
      clientId: client.id,
      expiresAt: at(now, 300 * DAY_MS),
      revokedAt: at(now, -DAY_MS),
    });
    add(
      "code past whose key was revoked",
      "AuthorizationCode",
      await code(-60 * DAY_MS, { apiKeyId: revokedKey.id }),
    );
    const expiredKey = await makeApiKey({
      tenantId: tenant.id,
      clientId: client.id,
      expiresAt: at(now, -DAY_MS),
    });
    add(
      "code past whose key expired",
      "AuthorizationCode",
      await code(-60 * DAY_MS, { apiKeyId: expiredKey.id }),
    );
    const keptFlow = add(
      "signed-in flow inside, with a code",
      "Flow",
      await makeFlow(client.id, at(now, -2 * DAY_MS), user.id),
    );
    add(
      "code past of a flow still kept",
      "AuthorizationCode",
      await code(-2 * DAY_MS, { flowId: keptFlow.id }),
    );
    const oldFlow = add(
      "signed-in flow past, with a code",
      "Flow",
      await makeFlow(client.id, at(now, -40 * DAY_MS), user.id),
    );
    add(
      "code past of a flow past",
      "AuthorizationCode",
      await code(-40 * DAY_MS, { flowId: oldFlow.id }),
    );

    // LoginChallenge: 7 days after it expired.
    add("challenge past", "LoginChallenge", await makeLoginChallenge(at(now, -8 * DAY_MS)));
    add("challenge inside", "LoginChallenge", await makeLoginChallenge(at(now, -6 * DAY_MS)));
    add("challenge live", "LoginChallenge", await makeLoginChallenge(at(now, 10 * MINUTE_MS)));

    // BrowserSession, SignInCounter, PasskeyChallenge: 1 hour after they expired.
    add("session past", "BrowserSession", await makeSession(user.id, at(now, -2 * HOUR_MS)));
    add("session inside", "BrowserSession", await makeSession(user.id, at(now, -30 * MINUTE_MS)));
    add("session live", "BrowserSession", await makeSession(user.id, at(now, DAY_MS)));
    add("counter past", "SignInCounter", await makeCounter(at(now, -2 * HOUR_MS)));
    add("counter inside", "SignInCounter", await makeCounter(at(now, -30 * MINUTE_MS)));
    add("counter live", "SignInCounter", await makeCounter(at(now, 10 * MINUTE_MS)));
    add("passkey past", "PasskeyChallenge", await makePasskeyChallenge(at(now, -2 * HOUR_MS)));
    add("passkey inside", "PasskeyChallenge", await makePasskeyChallenge(at(now, -30 * MINUTE_MS)));
    add("passkey live", "PasskeyChallenge", await makePasskeyChallenge(at(now, 4 * MINUTE_MS)));

    // PinFailure: 366 days.
    add("pin failure past", "PinFailure", await makePinFailure(at(now, -367 * DAY_MS)));
    add("pin failure inside", "PinFailure", await makePinFailure(at(now, -365 * DAY_MS)));
    add("pin failure now", "PinFailure", await makePinFailure(now));

    // PinClosure: 366 days after the closure ended.
    for (const [name, offset] of [
      ["closure past", -367 * DAY_MS],
      ["closure inside", -365 * DAY_MS],
      ["closure open", DAY_MS],
    ] as const) {
      const closure = await makeClosure(at(now, offset));
      rows[name] = { table: "PinClosure", id: closure.addressKey };
    }

    // OutboxMessage: 7 days.
    add("mail past", "OutboxMessage", await makeOutboxMessage(at(now, -8 * DAY_MS)));
    add("mail inside", "OutboxMessage", await makeOutboxMessage(at(now, -6 * DAY_MS)));
    add("mail now", "OutboxMessage", await makeOutboxMessage(now));

    // WebhookEvent: 30 days, its deliveries and attempts with it.
    add("webhook past", "WebhookEvent", await makeWebhookEvent(at(now, -31 * DAY_MS)));
    add("webhook inside", "WebhookEvent", await makeWebhookEvent(at(now, -29 * DAY_MS)));
    add("webhook now", "WebhookEvent", await makeWebhookEvent(now));

    // AuditEvent: 365 days, as `audit prune` keeps them.
    add("event past", "AuditEvent", await makeAuditEvent(at(now, -366 * DAY_MS)));
    add("event inside", "AuditEvent", await makeAuditEvent(at(now, -364 * DAY_MS)));
    add("event now", "AuditEvent", await makeAuditEvent(now));

    const expected: Record<string, number> = {
      Flow: 3,
      BankIngest: 3,
      BankAuthorization: 1,
      AuthorizationCode: 4,
      LoginChallenge: 1,
      BrowserSession: 1,
      SignInCounter: 1,
      PinFailure: 1,
      PinClosure: 1,
      PasskeyChallenge: 1,
      OutboxMessage: 1,
      WebhookEvent: 1,
      AuditEvent: 1,
    };
    const status = await janitorStatus(now);
    expect(Object.fromEntries(status.map((entry) => [entry.table, entry.expired]))).toEqual(
      expected,
    );
    const flowsBefore = await metricValue('bank_connect_janitor_rows_removed_total{table="Flow"}');

    const written: string[] = [];
    const stdout = vi.spyOn(process.stdout, "write").mockImplementation((chunk) => {
      written.push(String(chunk));
      return true;
    });
    let report;
    try {
      report = await runJanitor({ now });
    } finally {
      stdout.mockRestore();
    }
    // One log line for the run, with what it removed per table.
    const lines = written
      .flatMap((chunk) => chunk.split("\n"))
      .filter((line) => line.includes('"janitor.run"'))
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({
      level: "info",
      removed_total: 20,
      tables: expect.arrayContaining([
        { table: "Flow", removed: 3 },
        { table: "AuthorizationCode", removed: 4 },
        { table: "AuditEvent", removed: 1 },
      ]),
    });

    expect(Object.fromEntries(report.tables.map((entry) => [entry.table, entry.removed]))).toEqual(
      expected,
    );
    expect(report.tables.map((entry) => entry.retention)).toEqual(
      status.map((entry) => entry.retention),
    );
    expect(Date.parse(report.finishedAt)).toBeGreaterThanOrEqual(Date.parse(report.startedAt));
    const found = await existing(rows);
    const removed = Object.keys(found).filter((name) => !found[name]);
    expect(removed.sort()).toEqual(
      [
        "flow past",
        "signed-in flow past",
        "signed-in flow past, with a code",
        "ingest done past",
        "ingest failed past",
        "ingest of a dead process past",
        "authorization past",
        "code past",
        "code past whose key was revoked",
        "code past whose key expired",
        "code past of a flow past",
        "challenge past",
        "session past",
        "counter past",
        "passkey past",
        "pin failure past",
        "closure past",
        "mail past",
        "webhook past",
        "event past",
      ].sort(),
    );
    // A webhook event's deliveries and their attempts went with it.
    const webhookPast = rows["webhook past"]?.id ?? "";
    expect(await db().webhookDelivery.count({ where: { eventId: webhookPast } })).toBe(0);
    expect(await db().webhookAttempt.count({ where: { delivery: { eventId: webhookPast } } })).toBe(
      0,
    );
    expect(
      await db().webhookAttempt.count({
        where: { delivery: { eventId: rows["webhook inside"]?.id } },
      }),
    ).toBe(1);
    // Nothing else is due any more; the run is counted in the metrics.
    expect((await janitorStatus(now)).every((entry) => entry.expired === 0)).toBe(true);
    expect(await metricValue('bank_connect_janitor_rows_removed_total{table="Flow"}')).toBe(
      flowsBefore + 3,
    );
    expect(await metricValue("bank_connect_janitor_run_duration_seconds_count")).toBeGreaterThan(0);
  });

  it("removes in batches, each its own statement, until a batch removes fewer than a full one", async () => {
    const now = new Date("1985-06-01T12:00:00.000Z");
    const user = await makeUser();
    for (let i = 0; i < 5; i++) {
      await makeCounter(at(now, -2 * HOUR_MS - i * MINUTE_MS));
      await makeLoginChallenge(at(now, -8 * DAY_MS - i * MINUTE_MS));
      await makeSession(user.id, at(now, -2 * HOUR_MS - i * MINUTE_MS));
      await makeAuditEvent(at(now, -366 * DAY_MS - i * MINUTE_MS));
    }
    // Four: two full batches, then one that finds nothing.
    for (let i = 0; i < 4; i++) await makeOutboxMessage(at(now, -8 * DAY_MS - i * MINUTE_MS));
    const kept = await makeCounter(at(now, -30 * MINUTE_MS));

    const { result: report, statements } = await countStatements(() =>
      runJanitor({ now, batchSize: 2 }),
    );

    // Each batch is one DELETE of its own, outside any transaction: 2 + 2 + 1 for five rows,
    // 2 + 2 + 0 for four, and one that finds nothing for a table with nothing due.
    const deletes = (name: string) =>
      statements.filter((text) => text.includes(`DELETE FROM "${name}"`)).length;
    expect(deletes("SignInCounter")).toBe(3);
    expect(deletes("AuditEvent")).toBe(3);
    expect(deletes("OutboxMessage")).toBe(3);
    expect(deletes("PinFailure")).toBe(1);
    expect(statements.filter((text) => /^(BEGIN|START TRANSACTION)/i.test(text))).toEqual([]);
    const removed = Object.fromEntries(report.tables.map((entry) => [entry.table, entry.removed]));
    expect(removed).toMatchObject({
      SignInCounter: 5,
      LoginChallenge: 5,
      BrowserSession: 5,
      AuditEvent: 5,
      OutboxMessage: 4,
    });
    expect((await janitorStatus(now)).every((entry) => entry.expired === 0)).toBe(true);
    expect(await db().signInCounter.count({ where: { id: kept.id } })).toBe(1);
  });

  it("refuses a batch size that is not a whole number of at least 1", async () => {
    await expect(runJanitor({ batchSize: 0 })).rejects.toThrow(RangeError);
    await expect(runJanitor({ batchSize: 1.5 })).rejects.toThrow(RangeError);
  });
});
