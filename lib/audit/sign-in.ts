import { db } from "../db/client";
import { type AuditWriter, recordAuditEvent, recordRefusal } from "./record";
import type { SIGN_IN_REFUSALS } from "./events";

/**
 * Sign-in events. They belong to no partner (partners never see who signs in
 * where) and never name the address typed: a refusal names the user only when
 * an account with that email exists, so the log does not become a list of
 * addresses people tried.
 */

type Method = "pin" | "link";

export function recordSignIn(
  tx: AuditWriter,
  input: { userId: string; method: Method; inFlow: boolean; clientIp: string | null; at: Date },
): Promise<void> {
  return recordAuditEvent(tx, {
    type: "sign_in.succeeded",
    context: { actor: { kind: "user", id: input.userId }, clientIp: input.clientIp },
    userId: input.userId,
    details: { method: input.method, inFlow: input.inFlow },
    at: input.at,
  });
}

export type SignInRefusal =
  | { reason: Exclude<(typeof SIGN_IN_REFUSALS)[number], "wrong_pin"> }
  | { reason: "wrong_pin"; attemptsLeft: number }
  /** The wrong PIN that used up the last attempt. */
  | { reason: "lock" };

/** A refused sign-in, recorded after the refusal (lib/audit/record.ts says why). */
export async function recordSignInRefusal(input: {
  method: Method;
  /** The challenge's email, when a challenge was found. */
  email: string | null;
  refusal: SignInRefusal;
  clientIp: string | null | undefined;
}): Promise<void> {
  const user = input.email
    ? await db()
        .user.findUnique({ where: { email: input.email }, select: { id: true } })
        .catch(() => null)
    : null;
  const common = {
    context: { actor: { kind: "anonymous" }, clientIp: input.clientIp ?? null },
    userId: user?.id ?? null,
  } as const;
  const { refusal } = input;
  if (refusal.reason === "lock") {
    return recordRefusal({ ...common, type: "sign_in.locked", details: { method: "pin" } });
  }
  return recordRefusal({
    ...common,
    type: "sign_in.failed",
    details:
      refusal.reason === "wrong_pin"
        ? { method: input.method, reason: refusal.reason, attemptsLeft: refusal.attemptsLeft }
        : { method: input.method, reason: refusal.reason },
  });
}
