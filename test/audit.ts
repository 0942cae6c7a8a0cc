import { randomBytes } from "node:crypto";
import { expect } from "vitest";
import { db } from "../lib/db/client";
import { CLIENT_IP_HEADER } from "../lib/http/client-ip";

/** Helpers for the audit-log tests: each test acts from an address of its own and reads its events back by it. */

const group = () => randomBytes(2).toString("hex");

/** A fresh address in the IPv6 documentation range, as the service's server would stamp it. */
export const uniqueAddress = () => `2001:db8:${group()}:${group()}:${group()}:${group()}::1`;

export const fromAddress = (address: string) => ({ [CLIENT_IP_HEADER]: address });

/** The events recorded from this client address, oldest first. */
export function eventsFrom(address: string) {
  return db().auditEvent.findMany({ where: { clientIp: address }, orderBy: { seq: "asc" } });
}

export function eventsWhere(where: { partnerId?: string; clientId?: string; userId?: string }) {
  return db().auditEvent.findMany({ where, orderBy: { seq: "asc" } });
}

/** No stored column, details included, holds any of these values. */
export function expectNoSecrets(rows: unknown[], secrets: (string | null | undefined)[]): void {
  const stored = JSON.stringify(rows, (_key, value: unknown) =>
    typeof value === "bigint" ? value.toString() : value,
  );
  for (const secret of secrets) {
    expect(secret, "a secret to look for").toBeTruthy();
    expect(
      stored.includes(secret ?? ""),
      `a stored event holds ${String(secret).slice(0, 4)}…`,
    ).toBe(false);
  }
}
