import { randomUUID } from "node:crypto";
import { userInfo } from "node:os";
import { afterAll, describe, expect, it } from "vitest";
import { recordAuditEvent } from "../lib/audit/record";
import { createClient, rotateClientSecret } from "../lib/partners/clients";
import { createPartner } from "../lib/partners/partners";
import { db, disconnectDb } from "../lib/db/client";
import { admin, adminJson, expectAdminRefusal } from "../test/admin-cli";
import { COMMANDS } from "./admin/commands";
import { parseOptions } from "./admin/options";

/** `npm run admin -- audit …`, and the events the CLI's own changes record (docs/audit-log.md). */

afterAll(disconnectDb);

const tag = () => randomUUID().slice(0, 8);

interface EventOutput {
  id: string;
  at: string;
  type: string;
  actor_kind: string;
  actor_id: string | null;
  partner_id: string | null;
  client_id: string | null;
  user_id: string | null;
  subject: string | null;
  client_ip: string | null;
  details: Record<string, unknown>;
}

// Each run starts a tsx process: several seconds on a busy machine.
const SLOW = 180_000;

/**
 * A command of the CLI's table run in this process, its options parsed as the
 * CLI parses them: a child process each would cost seconds on a busy machine,
 * so only the listing and the help below go through the real CLI.
 */
async function command(name: string, args: string[] = []): Promise<unknown> {
  const found = COMMANDS.find((candidate) => candidate.name === name);
  if (!found) throw new Error(`no command ${name}`);
  return found.run(parseOptions(args, found.options));
}

describe("admin CLI: audit log", () => {
  it(
    "records each operator change once, as the operator, and audit list prints them newest first",
    async () => {
      const partner = (
        (await command("partner create", [
          "--name",
          `Audit ${tag()}`,
          "--owner-email",
          `a-${tag()}@example.com`,
        ])) as { partner_id: string }
      ).partner_id;
      const owner = `second-${tag()}@example.com`;
      await command("partner suspend", ["--partner", partner]);
      await command("partner suspend", ["--partner", partner]);
      await command("partner resume", ["--partner", partner]);
      await command("partner add-owner", ["--partner", partner, "--email", owner]);
      await command("partner add-owner", ["--partner", partner, "--email", owner]);
      const created = (await command("client create", [
        "--partner",
        partner,
        "--redirect-uri",
        "https://audit.example/cb",
      ])) as { client_id: string; client_secret: string };
      const rotated = (await command("client rotate-secret", ["--client", created.client_id])) as {
        client_secret: string;
      };

      const run = await admin("audit", "list", "--partner", partner);
      const events = adminJson<EventOutput[]>(run);
      expect(events.map((event) => event.type)).toEqual([
        "client.secret_rotated",
        "client.created",
        "partner.owner_added",
        "partner.resumed",
        "partner.suspended",
        "partner.created",
      ]);
      for (const event of events) {
        expect(event).toMatchObject({
          actor_kind: "operator",
          actor_id: userInfo().username,
          partner_id: partner,
          client_ip: null,
        });
      }
      const addedUser = await db().user.findUniqueOrThrow({ where: { email: owner } });
      expect(events[2]).toMatchObject({ user_id: addedUser.id, details: { email: owner } });
      expect(events[0]).toMatchObject({ client_id: created.client_id });
      expect(run.stdout).not.toContain(created.client_secret);
      expect(run.stdout).not.toContain(rotated.client_secret);
    },
    SLOW,
  );

  it(
    "filters by --type, --client, --since and --limit",
    async () => {
      const { id: partner } = await createPartner({
        name: `Filter ${tag()}`,
        ownerEmail: `f-${tag()}@example.com`,
      });
      const { client } = await createClient({
        partnerId: partner,
        redirectUris: ["https://filter.example/cb"],
      });
      const since = new Date(Date.now() + 1);
      await new Promise((resolve) => setTimeout(resolve, 5));
      await rotateClientSecret(client.id);
      await rotateClientSecret(client.id);
      const sinceText = since.toISOString();
      const list = async (...args: string[]) =>
        ((await command("audit list", args)) as EventOutput[]).map((event) => event.type);
      expect(await list("--partner", partner, "--type", "partner.created")).toEqual([
        "partner.created",
      ]);
      expect(await list("--client", client.id)).toEqual([
        "client.secret_rotated",
        "client.secret_rotated",
        "client.created",
      ]);
      expect(await list("--client", client.id, "--since", sinceText)).toEqual([
        "client.secret_rotated",
        "client.secret_rotated",
      ]);
      expect(await list("--partner", partner, "--limit", "1")).toEqual(["client.secret_rotated"]);
    },
    SLOW,
  );

  it(
    "refuses an unknown type, a malformed id, time or limit (exit 2)",
    async () => {
      expectAdminRefusal(
        await admin("audit", "list", "--type", "nope"),
        2,
        "--type must be one of",
      );
      const refusals: [string[], string][] = [
        [["--partner", "acme"], "--partner must be a UUID"],
        [["--user", "42"], "--user must be a UUID"],
        [["--since", "yesterday"], "--since must be an ISO 8601 date or time"],
        [["--since", "2026-13-45"], "--since must be an ISO 8601 date or time"],
        [["--limit", "0"], "--limit must be a whole number from 1 to 1000"],
        [["--limit", "5000"], "--limit must be a whole number from 1 to 1000"],
        [["--limit", "1e2"], "--limit must be a whole number from 1 to 1000"],
      ];
      for (const [args, message] of refusals) {
        await expect(command("audit list", args)).rejects.toThrow(
          expect.objectContaining({
            name: "UsageError",
            message: expect.stringContaining(message),
          }),
        );
      }
    },
    SLOW,
  );

  it(
    "audit prune deletes the events older than the retention and keeps the rest",
    async () => {
      const clientId = `obc_prune_${tag()}`;
      const write = (at: Date) =>
        recordAuditEvent(db(), {
          type: "client.deleted",
          context: { actor: { kind: "system" }, clientIp: null },
          clientId,
          details: { name: "Pruned" },
          at,
        });
      await write(new Date(Date.now() - 400 * 24 * 60 * 60 * 1000));
      await write(new Date(Date.now() - 10 * 24 * 60 * 60 * 1000));

      const pruned = (await command("audit prune")) as { deleted: number; before: string };
      expect(pruned.deleted).toBeGreaterThanOrEqual(1);
      expect(Date.now() - Date.parse(pruned.before)).toBeGreaterThan(364 * 24 * 60 * 60 * 1000);
      const left = await db().auditEvent.findMany({ where: { clientId } });
      expect(left).toHaveLength(1);

      await command("audit prune", ["--days", "5"]);
      expect(await db().auditEvent.count({ where: { clientId } })).toBe(0);
      await expect(command("audit prune", ["--days", "0"])).rejects.toThrow("--days must be");
    },
    SLOW,
  );

  it(
    "lists the audit commands in the help, with every event type",
    async () => {
      expect(COMMANDS.map((candidate) => candidate.name)).toEqual(
        expect.arrayContaining(["audit list", "audit prune"]),
      );
      const help = await admin("help", "audit", "list");
      expect(help.stdout).toMatch(/^usage: npm run admin -- audit list /);
      expect(help.code).toBe(0);
      for (const type of ["sign_in.locked", "api_key.revoked", "partner.recipient_key_installed"]) {
        expect(help.stdout).toContain(type);
      }
    },
    SLOW,
  );
});
