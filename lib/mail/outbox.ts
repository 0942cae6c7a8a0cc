import { normalizeEmail } from "./address";
import { db } from "../db/client";
import { log } from "../log";
import type { Mailer, MailMessage } from "./types";

/** A message as its row stores it (its id and time are the schema's defaults). */
function toRow(message: MailMessage) {
  return {
    to: message.to,
    subject: message.subject,
    text: message.text,
    html: message.html,
    link: message.link ?? null,
    code: message.code ?? null,
  };
}

/**
 * The local mailer (README.md: development mail stays local): every
 * message is stored in the OutboxMessage table instead of being sent, with
 * its link and code, so a developer (`npm run admin -- mail last --to …`) and
 * the Playwright journeys can read it. Chosen only in local mode without a
 * mail provider; production mode refuses to start that way (lib/env.ts,
 * docs/production.md).
 */
export class OutboxMailer implements Mailer {
  readonly name = "outbox";

  async send(message: MailMessage): Promise<void> {
    await db().outboxMessage.create({ data: toRow(message) });
    // Neither the link nor the code is logged, only where to find them (docs/security.md).
    log.info("mail.stored_in_outbox", { read_with: "npm run admin -- mail last --to <address>" });
  }

  /** Every message in one statement. */
  async sendMany(messages: readonly MailMessage[]): Promise<void> {
    if (messages.length === 0) return;
    await db().outboxMessage.createMany({ data: messages.map(toRow) });
    log.info("mail.stored_in_outbox", {
      messages: messages.length,
      read_with: "npm run admin -- mail last --to <address>",
    });
  }
}

export interface OutboxEntry {
  to: string;
  subject: string;
  text: string;
  html: string;
  link: string | null;
  code: string | null;
  sentAt: Date;
}

/** The newest outbox message to an address (normalized like every stored email), or null. */
export async function findLastMessage(to: string): Promise<OutboxEntry | null> {
  return db().outboxMessage.findFirst({
    where: { to: normalizeEmail(to) },
    orderBy: [{ sentAt: "desc" }, { id: "desc" }],
    select: {
      to: true,
      subject: true,
      text: true,
      html: true,
      link: true,
      code: true,
      sentAt: true,
    },
  });
}
