import { afterEach, describe, expect, it, vi } from "vitest";
import { db } from "../db/client";
import { verifyClientSecret } from "../keys/client-credentials";
import { rotateClientSecret } from "../partners/clients";
import { createTestClient } from "../../test/oauth-fixtures";
import { eventsFrom, eventsWhere, uniqueAddress } from "../../test/audit";
import type { AuditContext } from "./events";
import { type AuditEventInput, recordAuditEvent, recordRefusal } from "./record";

/** The write rules of lib/audit/record.ts: strict per-type schemas, and an event or no change. */

afterEach(() => vi.restoreAllMocks());

const context = (address: string): AuditContext => ({
  actor: { kind: "operator", id: "root" },
  clientIp: address,
});

describe("recording an audit event", () => {
  it("refuses a field its type does not define, or a whole key as the subject, and writes nothing", async () => {
    const address = uniqueAddress();
    const secret = "obs_0123456789abcdefghijklmnopqrstuvwxyzABCDEF";
    const key = "ebk_0123456789abcdefghijklmnopqrstuvwxyzABCDEFG";
    const attempts = [
      {
        type: "client.secret_rotated",
        context: context(address),
        details: { previousSecretExpiresAt: new Date().toISOString(), clientSecret: secret },
      },
      {
        type: "api_key.issued",
        context: context(address),
        subject: key,
        details: { scope: "accounts.read" },
      },
      {
        type: "sign_in.failed",
        context: context(address),
        details: { method: "pin", reason: "wrong_pin", pin: "123456" },
      },
    ] as unknown as AuditEventInput<"client.secret_rotated">[];
    for (const event of attempts) {
      await expect(recordAuditEvent(db(), event)).rejects.toThrow();
    }
    expect(await eventsFrom(address)).toEqual([]);
  });

  it("keeps only an address as the client address", async () => {
    const client = await createTestClient({ house: true });
    const write = (clientIp: string) =>
      recordAuditEvent(db(), {
        type: "client.deleted",
        context: { actor: { kind: "system" }, clientIp },
        clientId: client.clientId,
        details: { name: "x" },
      });
    await write("unknown");
    await write("::FFFF:192.0.2.7");
    await write("<script>");
    const stored = await eventsWhere({ clientId: client.clientId });
    expect(stored.map((event) => event.clientIp)).toEqual([null, null, "192.0.2.7", null]);
  });

  it("a change whose event cannot be written is rolled back: the rotation did not happen", async () => {
    const client = await createTestClient();
    const broken = { actor: { kind: "robot" }, clientIp: null } as unknown as AuditContext;
    await expect(rotateClientSecret(client.clientId, new Date(), broken)).rejects.toThrow();
    const row = await db().client.findUniqueOrThrow({ where: { id: client.clientId } });
    expect(row.previousSecretHash).toBeNull();
    expect(verifyClientSecret(row, client.clientSecret, new Date())).toBe(true);
    const types = (await eventsWhere({ clientId: client.clientId })).map((event) => event.type);
    expect(types).toEqual(["client.created"]);
  });

  it("a refusal whose event cannot be written is logged as audit.write_failed, and the refusal stands", async () => {
    const errors = vi.spyOn(process.stderr, "write").mockImplementation(() => true);
    const address = uniqueAddress();
    await expect(
      recordRefusal({
        type: "sign_in.failed",
        context: context(address),
        details: { method: "pin", reason: "nope" },
      } as unknown as AuditEventInput<"sign_in.failed">),
    ).resolves.toBeUndefined();
    const lines = errors.mock.calls.map((call) => String(call[0]));
    expect(lines.some((line) => line.includes('"event":"audit.write_failed"'))).toBe(true);
    expect(await eventsFrom(address)).toEqual([]);
  });
});
