/**
 * The mail integration's interface (docs/architecture.md#integrations-behind-small-interfaces): a real implementation
 * (Resend) and a local one (the outbox table), chosen by configuration in
 * lib/mail/index.ts. Callers only ever see `Mailer`.
 */

export interface MailMessage {
  /** A normalized address (./address.ts). */
  to: string;
  subject: string;
  /** The plain-text part; every mail has one. */
  text: string;
  html: string;
  /**
   * The sign-in link and code this mail carries. Only the local outbox keeps
   * them (so QA and the Playwright journeys can read them); a real provider
   * never receives them outside the body.
   */
  link?: string;
  code?: string;
}

export interface Mailer {
  /** "resend", "smtp" or "outbox": which implementation configuration chose. */
  readonly name: string;
  /** Resolves once the message is accepted; rejects with a MailError otherwise. */
  send(message: MailMessage): Promise<void>;
  /**
   * Several messages at once, all or none, where the implementation can do
   * that in one step (the local outbox: one statement); otherwise absent.
   */
  sendMany?(messages: readonly MailMessage[]): Promise<void>;
}
