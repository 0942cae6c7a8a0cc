import type { AddressInfo } from "node:net";
import { simpleParser } from "mailparser";
import { SMTPServer } from "smtp-server";

/**
 * A real SMTP relay on loopback for tests (smtp-server, RFC 5321), without
 * TLS or authentication. Before each recipient it asks `refusal`: an SMTP
 * reply code and message refuses that recipient, null accepts it. Accepted
 * mail is kept as its text per recipient address.
 */
export interface SmtpRelay {
  port: number;
  delivered: Map<string, string>;
  close(): Promise<void>;
}

export type SmtpRefusal = { code: number; message: string } | null;

export async function startSmtpRelay(refusal: () => SmtpRefusal): Promise<SmtpRelay> {
  const delivered = new Map<string, string>();
  const server = new SMTPServer({
    secure: false,
    disabledCommands: ["STARTTLS", "AUTH"],
    logger: false,
    onRcptTo(_address, _session, callback) {
      const refused = refusal();
      if (refused)
        callback(Object.assign(new Error(refused.message), { responseCode: refused.code }));
      else callback();
    },
    onData(stream, session, callback) {
      void simpleParser(stream).then((mail) => {
        for (const to of session.envelope.rcptTo) delivered.set(to.address, mail.text ?? "");
        callback();
      }, callback);
    },
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    port: (server.server.address() as AddressInfo).port,
    delivered,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
