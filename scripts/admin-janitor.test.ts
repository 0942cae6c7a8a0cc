import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { db } from "../lib/db/client";
import { useScratchDatabase, type ScratchDatabase } from "../test/db-pressure";
import { admin, adminJson, expectAdminRefusal } from "../test/admin-cli";
import { COMMANDS } from "./admin/commands";
import { parseOptions } from "./admin/options";

/**
 * `npm run admin -- janitor status|run` (docs/operations.md#cleanup-janitor),
 * on a database of this file's own (the janitor works across whole tables).
 * The rows are dated in 1975 and the commands count back from then (--as-of).
 */

let scratch: ScratchDatabase;
beforeAll(async () => {
  scratch = await useScratchDatabase("janitor_cli");
});
afterAll(() => scratch.release());

const tag = () => randomUUID().replaceAll("-", "").slice(0, 16);
const HOUR_MS = 60 * 60_000;
const DAY_MS = 24 * HOUR_MS;
const AS_OF = "1975-06-01T12:00:00.000Z";
const now = new Date(AS_OF);
const at = (offsetMs: number) => new Date(now.getTime() + offsetMs);

// Each run starts a tsx process: several seconds on a busy machine.
const SLOW = 180_000;

async function command(name: string, args: string[] = []): Promise<unknown> {
  const found = COMMANDS.find((candidate) => candidate.name === name);
  if (!found) throw new Error(`no command ${name}`);
  return found.run(parseOptions(args, found.options));
}

interface TableOutput {
  table: string;
  retention: string;
}

const byTable = <T extends TableOutput>(tables: T[], field: keyof T) =>
  Object.fromEntries(tables.map((entry) => [entry.table, entry[field]]));

describe("admin CLI: janitor", () => {
  it(
    "janitor status counts the rows past their retention, janitor run removes them in batches and prints them per table",
    async () => {
      const counters = [];
      for (let i = 0; i < 3; i++) {
        counters.push(
          await db().signInCounter.create({
            data: { id: `janitor-cli:${tag()}`, count: 1, expiresAt: at(-2 * HOUR_MS - i) },
          }),
        );
      }
      const kept = await db().signInCounter.create({
        data: { id: `janitor-cli:${tag()}`, count: 1, expiresAt: at(-30 * 60_000) },
      });
      const mail = await db().outboxMessage.create({
        data: { to: `janitor-${tag()}@example.com`, subject: "s", text: "t", html: "t" },
      });
      await db().outboxMessage.update({
        where: { id: mail.id },
        data: { sentAt: at(-8 * DAY_MS) },
      });
      const event = await db().auditEvent.create({
        data: { type: "partner.created", actorKind: "system", at: at(-400 * DAY_MS) },
      });
      const partner = await db().partner.create({ data: { name: `Janitor ${tag()}` } });
      const webhookEvent = await db().webhookEvent.create({
        data: {
          id: `msg_${tag()}`,
          partnerId: partner.id,
          type: "access.granted",
          payload: {},
          createdAt: at(-31 * DAY_MS),
        },
      });

      const status = adminJson<{
        as_of: string;
        expired_total: number;
        tables: (TableOutput & { expired: number })[];
      }>(await admin("janitor", "status", "--as-of", AS_OF));
      expect(status.as_of).toBe(AS_OF);
      expect(byTable(status.tables, "expired")).toEqual({
        Flow: 0,
        BankIngest: 0,
        BankAuthorization: 0,
        AuthorizationCode: 0,
        LoginChallenge: 0,
        BrowserSession: 0,
        SignInCounter: 3,
        PinFailure: 0,
        PinClosure: 0,
        PasskeyChallenge: 0,
        OutboxMessage: 1,
        AuditEvent: 1,
        WebhookEvent: 1,
      });
      expect(status.expired_total).toBe(6);
      expect(byTable(status.tables, "retention")).toMatchObject({
        SignInCounter: "1 hour after its window ended",
        AuditEvent: "365 days",
      });

      const run = adminJson<{
        started_at: string;
        finished_at: string;
        removed_total: number;
        tables: (TableOutput & { removed: number })[];
      }>(await admin("janitor", "run", "--as-of", AS_OF, "--batch-size", "2"));
      expect(byTable(run.tables, "removed")).toEqual(byTable(status.tables, "expired"));
      expect(run.removed_total).toBe(6);
      expect(Date.parse(run.finished_at)).toBeGreaterThanOrEqual(Date.parse(run.started_at));

      const ids = counters.map((counter) => counter.id);
      expect(await db().signInCounter.count({ where: { id: { in: ids } } })).toBe(0);
      expect(await db().signInCounter.count({ where: { id: kept.id } })).toBe(1);
      expect(await db().outboxMessage.count({ where: { id: mail.id } })).toBe(0);
      expect(await db().auditEvent.count({ where: { id: event.id } })).toBe(0);
      expect(await db().webhookEvent.count({ where: { id: webhookEvent.id } })).toBe(0);
      const after = (await command("janitor status", ["--as-of", AS_OF])) as {
        expired_total: number;
      };
      expect(after.expired_total).toBe(0);
    },
    SLOW,
  );

  it("refuses a time in the future, a malformed time and a batch size out of range (exit 2)", async () => {
    const future = new Date(Date.now() + DAY_MS).toISOString();
    const refusals: [string, string[], string][] = [
      ["janitor run", ["--as-of", future], "--as-of must not be in the future"],
      ["janitor status", ["--as-of", future], "--as-of must not be in the future"],
      ["janitor status", ["--as-of", "yesterday"], "--as-of must be an ISO 8601 date or time"],
      ["janitor run", ["--batch-size", "0"], "--batch-size must be a whole number from 1 to"],
      ["janitor run", ["--batch-size", "many"], "--batch-size must be a whole number from 1 to"],
    ];
    for (const [name, args, message] of refusals) {
      await expect(command(name, args)).rejects.toThrow(
        expect.objectContaining({ name: "UsageError", message: expect.stringContaining(message) }),
      );
    }
  });

  it(
    "lists the janitor commands in the help, and refuses an unknown option with its usage",
    async () => {
      const help = await admin("help");
      expect(help.code).toBe(0);
      expect(help.stdout).toContain("janitor status");
      expect(help.stdout).toContain("janitor run");
      const usage = await admin("janitor", "run", "--days", "3");
      expectAdminRefusal(usage, 2, "--days");
      expect(usage.stderr).toContain("usage: npm run admin -- janitor run [--batch-size <n>]");
    },
    SLOW,
  );
});
