import { afterAll, describe, expect, it } from "vitest";
import { db, disconnectDb } from "../db/client";
import { handleBankCallback } from "../flow/banks";
import { settleIngests } from "../flow/bank-ingest";
import { approveSandboxAuthorization } from "../upstream/sandbox/consent";
import { partnerTenantOf, partnerWithRecipientKey, sandboxConsent } from "../../test/bank-data";
import { createTestUser, ISSUER, mintApiKey, signedInCookie } from "../../test/oauth-fixtures";
import { storeBankSession } from "../banking/ingest";
import { keyedHash } from "../crypto/keyed-hash";
import { sandboxUpstream } from "../upstream/sandbox";
import { CONSENTS_JOB } from "../jobs/schedules";
import { runConsentReminders } from "./consent-reminders";
import { consentEnd, handleRenewConsent } from "./renew-consent";

/**
 * The reminder before a bank consent ends (docs/events.md#reminders): mailed
 * once per consent however many runs see it, in the person's language, never
 * for a consent no application reads, and its link renews the consent
 * through the bank's real consent (the sandbox bank).
 */

afterAll(disconnectDb);

const DAY_MS = 24 * 60 * 60 * 1000;

/** A person with a partner's key and a sandbox bank whose consent ends in `days` days. */
async function consentEndingIn(days: number, locale: string | null = null) {
  const { client, keys } = await partnerWithRecipientKey();
  const { user } = await mintApiKey(client);
  const partnerTenant = await partnerTenantOf(client, user);
  // Connected as the flow connects: the bank knows the person by the tenant's keyed id.
  const session = await sandboxConsent({ psuId: keyedHash("psu-id", partnerTenant.subject) });
  const stored = await storeBankSession({
    tenantId: partnerTenant.id,
    sealingKey: keys.publicKeyRawB64,
    upstream: sandboxUpstream({ baseUrl: ISSUER }),
    session,
  });
  const connected = { tenantId: partnerTenant.id, stored };
  const connectionId = stored.connectionId;
  await db().connection.update({
    where: { id: connectionId },
    data: { validUntil: new Date(Date.now() + days * DAY_MS) },
  });
  const tenant = await db().tenant.findUniqueOrThrow({
    where: { id: connected.tenantId },
    select: { userId: true, user: { select: { email: true } } },
  });
  await db().user.update({ where: { id: tenant.userId }, data: { locale } });
  return { ...connected, connectionId, userId: tenant.userId, email: tenant.user.email };
}

/** The reminders a person got (the partner's access-granted mail left aside). */
const mailsTo = (email: string) =>
  db().outboxMessage.findMany({
    where: { to: email, text: { contains: "/account/connections/" } },
    orderBy: { sentAt: "asc" },
  });

const renewUrlOf = (text: string) => {
  const match = /http\S+\/account\/connections\/[0-9a-f-]+\/renew/.exec(text);
  if (!match) throw new Error(`no renew link in: ${text}`);
  return match[0];
};

describe("reminders before a bank consent ends", () => {
  it("mails the person once, even when runs overlap and repeat", async () => {
    const due = await consentEndingIn(3);
    await Promise.all([
      runConsentReminders(),
      runConsentReminders(),
      CONSENTS_JOB.run({} as never),
    ]);
    await runConsentReminders();
    const mails = await mailsTo(due.email);
    expect(mails).toHaveLength(1);
    expect(mails[0]?.subject).toBe("Your consent for Sandbox Nordbank DK ends soon");
    // One link, to this consent's renewal at the service.
    const links = new Set(mails[0]?.text.match(/https?:\/\/\S+/g));
    expect([...links]).toEqual([`${ISSUER}/account/connections/${due.connectionId}/renew`]);
    const row = await db().connection.findUniqueOrThrow({ where: { id: due.connectionId } });
    expect(row.expiryReminderSentAt).not.toBeNull();
  });

  it("writes in the person's language and names the day the consent ends", async () => {
    const due = await consentEndingIn(5, "de");
    await runConsentReminders();
    const [mail] = await mailsTo(due.email);
    expect(mail?.subject).toBe("Ihre Einwilligung für Sandbox Nordbank DK endet bald");
    const row = await db().connection.findUniqueOrThrow({ where: { id: due.connectionId } });
    const day = new Intl.DateTimeFormat("de", { dateStyle: "long", timeZone: "UTC" }).format(
      row.validUntil,
    );
    expect(mail?.text).toContain(`endet am ${day}`);
    expect(mail?.html).toContain('lang="de"');
  });

  it("mails nobody whose every partner's access to that bank has ended", async () => {
    const due = await consentEndingIn(2);
    await db().apiKey.updateMany({
      where: { tenantId: due.tenantId },
      data: { revokedAt: new Date() },
    });
    await runConsentReminders();
    expect(await mailsTo(due.email)).toHaveLength(0);
    const row = await db().connection.findUniqueOrThrow({ where: { id: due.connectionId } });
    expect(row.expiryReminderSentAt).toBeNull();
  });

  it("waits until the consent is within the days set", async () => {
    const later = await consentEndingIn(20);
    await runConsentReminders({ days: 7 });
    expect(await mailsTo(later.email)).toHaveLength(0);
    await runConsentReminders({ days: 21 });
    expect(await mailsTo(later.email)).toHaveLength(1);
  });

  it("tells the partner once per consent: connection.expiring within the days, connection.expired past the end", async () => {
    const due = await consentEndingIn(3);
    const partnerId = (await db().tenant.findUniqueOrThrow({ where: { id: due.tenantId } }))
      .partnerId;
    await db().webhookEndpoint.create({
      data: {
        partnerId: partnerId ?? "",
        url: "https://hooks.example.com/bank-connect",
        eventTypes: ["connection.expiring", "connection.expired"],
        secretSealed: "sealed-secret",
      },
    });
    const eventsOf = (type: string) =>
      db().webhookEvent.findMany({ where: { partnerId: partnerId ?? "", type } });

    await Promise.all([runConsentReminders(), runConsentReminders()]);
    await runConsentReminders();
    const [expiring, ...more] = await eventsOf("connection.expiring");
    expect(more).toHaveLength(0);
    const row = await db().connection.findUniqueOrThrow({ where: { id: due.connectionId } });
    expect(expiring?.payload).toMatchObject({
      type: "connection.expiring",
      data: {
        connection_id: due.connectionId,
        user: (await db().tenant.findUniqueOrThrow({ where: { id: due.tenantId } })).subject,
        valid_until: row.validUntil.toISOString(),
      },
    });
    expect(await eventsOf("connection.expired")).toHaveLength(0);

    // The consent's end passes with the connection still active: expired, once.
    await db().connection.update({
      where: { id: due.connectionId },
      data: { validUntil: new Date(Date.now() - 60_000) },
    });
    await Promise.all([runConsentReminders(), runConsentReminders()]);
    await runConsentReminders();
    expect(await eventsOf("connection.expired")).toHaveLength(1);
    expect(await eventsOf("connection.expiring")).toHaveLength(1);
  });

  it("its link renews the consent through the bank, the same connection with a new end date", async () => {
    const due = await consentEndingIn(3);
    await runConsentReminders();
    const [mail] = await mailsTo(due.email);
    const link = renewUrlOf(mail?.text ?? "");

    // Signed out, the sign-in comes first and brings the person back to the link.
    const signedOut = await handleRenewConsent(new Request(link));
    expect(signedOut.status).toBe(303);
    const login = new URL(signedOut.headers.get("location") ?? "", ISSUER);
    expect(login.pathname).toBe("/login");
    expect(login.searchParams.get("returnUrl")).toBe(new URL(link).pathname);

    // Someone else signed in is sent to their own page, no consent started.
    const stranger = await createTestUser();
    const theirs = await handleRenewConsent(
      new Request(link, { headers: { Cookie: await signedInCookie(stranger.id) } }),
    );
    expect(theirs.headers.get("location")).toBe("/account");

    const cookie = await signedInCookie(due.userId);
    const atBank = await handleRenewConsent(new Request(link, { headers: { Cookie: cookie } }));
    expect(atBank.status).toBe(303);
    const bankPage = new URL(atBank.headers.get("location") ?? "");
    expect(bankPage.pathname).toBe("/sandbox/authorize");
    const back = approveSandboxAuthorization(bankPage.searchParams.get("authorization") ?? "");
    const callback = await handleBankCallback(new Request(back ?? ""));
    expect(callback.status).toBe(303);
    expect(callback.headers.get("location")).toBe("/account?renewal=connecting#banks-title");
    await settleIngests();

    const connections = await db().connection.findMany({ where: { tenantId: due.tenantId } });
    expect(connections.map((row) => row.id)).toEqual([due.connectionId]);
    const [renewed] = connections;
    expect(renewed?.status).toBe("Active");
    expect(renewed?.validUntil.getTime()).toBeGreaterThan(Date.now() + 60 * DAY_MS);
    // The new consent gets its own reminder when it ends in turn.
    expect(renewed?.expiryReminderSentAt).toBeNull();
    // The partner's key reads the same accounts as before.
    const accounts = await db().account.findMany({ where: { connectionId: due.connectionId } });
    expect(accounts.map((account) => account.id).sort()).toEqual([...due.stored.accountIds].sort());
  });
});

describe("how My access words a consent's end", () => {
  const now = new Date("2026-11-27T22:00:00Z");
  const at = (iso: string, status = "Active") => consentEnd({ status, validUntil: iso }, now);

  it("counts UTC calendar days when the end is within 14 days, and says nothing further out", () => {
    expect(at("2026-11-27T23:30:00Z")).toEqual({ ended: false, endsInDays: 0 });
    expect(at("2026-11-28T01:00:00Z")).toEqual({ ended: false, endsInDays: 1 });
    expect(at("2026-12-11T12:00:00Z")).toEqual({ ended: false, endsInDays: 14 });
    expect(at("2026-12-12T12:00:00Z")).toEqual({ ended: false, endsInDays: null });
  });

  it("an end that has passed, or an expired consent, has ended; a withdrawn one counts no days", () => {
    expect(at("2026-11-27T21:00:00Z")).toEqual({ ended: true, endsInDays: null });
    expect(at("2027-01-01T00:00:00Z", "Expired")).toEqual({ ended: true, endsInDays: null });
    expect(at("2026-11-30T00:00:00Z", "Withdrawn")).toEqual({ ended: false, endsInDays: null });
  });
});
