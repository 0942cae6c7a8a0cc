import { randomBytes } from "node:crypto";
import type { AddressInfo } from "node:net";
import { simpleParser, type ParsedMail } from "mailparser";
import { SMTPServer } from "smtp-server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { requestLoginChallenge, newBrowserNonce } from "../auth/login-challenges";
import { setSetting } from "../env";
import { uniqueEmail } from "../../test/oauth-fixtures";
import { MailError } from "./errors";
import { mailer } from "./index";
import { SmtpMailer } from "./smtp";

/**
 * A real SMTP server on loopback (smtp-server, RFC 5321). It requires
 * authentication, refuses recipients whose local part starts with "refused"
 * (550) or "busy" (451), and keeps every message it accepts.
 */
interface Delivery {
  envelopeFrom: string;
  envelopeTo: string[];
  user: string | undefined;
  mail: ParsedMail;
}

const USER = "relay-user";
const PASSWORD = "relay password/with:specials";
const FROM = "Bank Connect <no-reply@connect.example>";
const deliveries: Delivery[] = [];
let server: SMTPServer;
let port: number;

function smtpError(message: string, responseCode: number): Error {
  return Object.assign(new Error(message), { responseCode });
}

beforeAll(async () => {
  server = new SMTPServer({
    secure: false,
    disabledCommands: ["STARTTLS"],
    authOptional: false,
    allowInsecureAuth: true,
    logger: false,
    onAuth(auth, _session, callback) {
      if (auth.username === USER && auth.password === PASSWORD) callback(null, { user: USER });
      else callback(smtpError("Invalid username or password", 535));
    },
    onRcptTo(address, _session, callback) {
      if (address.address.startsWith("refused")) callback(smtpError("Mailbox unavailable", 550));
      else if (address.address.startsWith("busy")) callback(smtpError("Try again later", 451));
      else callback();
    },
    onData(stream, session, callback) {
      void simpleParser(stream).then((mail) => {
        deliveries.push({
          envelopeFrom: session.envelope.mailFrom ? session.envelope.mailFrom.address : "",
          envelopeTo: session.envelope.rcptTo.map((r) => r.address),
          user: session.user as string | undefined,
          mail,
        });
        callback();
      }, callback);
    },
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  port = (server.server.address() as AddressInfo).port;
  // The service's own mailer, chosen by configuration as in production.
  setSetting("SMTP_URL", `smtp://${USER}:${encodeURIComponent(PASSWORD)}@127.0.0.1:${port}`);
  setSetting("MAIL_FROM", FROM);
});

afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

const uniqueIp = () => `203.0.113.${randomBytes(1)[0]}-${randomBytes(4).toString("hex")}`;

const signIn = (email: string) =>
  requestLoginChallenge({
    email,
    locale: "de",
    partnerName: "Acme Budget",
    flowId: null,
    returnUrl: "/oauth/authorize?client_id=obc_x",
    browserNonce: newBrowserNonce(),
    clientIp: uniqueIp(),
  });

async function failure(promise: Promise<unknown>): Promise<MailError> {
  const error: unknown = await promise.then(
    () => null,
    (reason: unknown) => reason,
  );
  expect(error).toBeInstanceOf(MailError);
  return error as MailError;
}

describe("sign-in mail over SMTP", () => {
  it("delivers a German sign-in mail with its link and 6-digit code, sender, recipient, subject, text and HTML", async () => {
    expect(mailer().name).toBe("smtp");
    const email = uniqueEmail("smtp");
    expect(await signIn(email)).toEqual({ status: "sent" });

    const delivery = deliveries.find((d) => d.envelopeTo.includes(email));
    expect(delivery?.user).toBe(USER);
    expect(delivery?.envelopeFrom).toBe("no-reply@connect.example");
    const mail = delivery!.mail;
    expect(mail.from?.value).toEqual([
      { address: "no-reply@connect.example", name: "Bank Connect" },
    ]);
    expect(mail.to && !Array.isArray(mail.to) ? mail.to.value : []).toEqual([
      { address: email, name: "" },
    ]);
    expect(mail.subject).toBe("Ihr Anmeldelink und Code für Acme Budget");

    const text = mail.text ?? "";
    expect(text).toContain("Melden Sie sich an, um mit Acme Budget fortzufahren.");
    const link = /http:\/\/localhost:3000\/login\/link\?token=[\w%-]+/.exec(text)?.[0];
    expect(link).toBeDefined();
    const code = /^\d{6}$/m.exec(text)?.[0];
    expect(code).toMatch(/^\d{6}$/);

    const html = typeof mail.html === "string" ? mail.html : "";
    expect(html).toContain("Bei Acme Budget anmelden");
    expect(html).toContain(link!.replaceAll("&", "&amp;"));
    expect(html).toContain(code!);
    // Nothing but the body carries the link or the code.
    for (const [name, value] of mail.headers) {
      expect(JSON.stringify(value), name).not.toContain(code!);
    }
  });

  it("a relay refusing the recipient (550) fails the sign-in request with a MailError, never 'sent'", async () => {
    const error = await failure(signIn(uniqueEmail("refused")));
    expect(error.code).toBe("rejected");
    expect(error.message).toBe("the mail server refused to send (SMTP 550 to RCPT TO)");
    expect(JSON.stringify(error.cause)).not.toContain("@");
  });

  it("maps a transient refusal (451) to unavailable and wrong credentials (535) to misconfigured", async () => {
    expect((await failure(signIn(uniqueEmail("busy")))).code).toBe("unavailable");
    const wrongPassword = new SmtpMailer({
      host: "127.0.0.1",
      port,
      secure: false,
      requireTls: false,
      auth: { user: USER, pass: "wrong" },
      from: FROM,
    });
    const error = await failure(
      wrongPassword.send({ to: uniqueEmail(), subject: "s", text: "t", html: "<p>h</p>" }),
    );
    expect(error.code).toBe("misconfigured");
  });

  it("a relay that is down is unavailable", async () => {
    // Port 1 on loopback: nothing listens, the connection is refused.
    const down = new SmtpMailer({
      host: "127.0.0.1",
      port: 1,
      secure: false,
      requireTls: false,
      from: FROM,
    });
    const error = await failure(
      down.send({ to: uniqueEmail(), subject: "s", text: "t", html: "<p>h</p>" }),
    );
    expect(error.code).toBe("unavailable");
    expect(error.message).toMatch(/^the mail server could not be reached \(E[A-Z]+\)$/);
  });

  it("refuses to send in clear text when STARTTLS is required and the relay does not offer it", async () => {
    const plain = new SmtpMailer({
      host: "127.0.0.1",
      port,
      secure: false,
      requireTls: true,
      auth: { user: USER, pass: PASSWORD },
      from: FROM,
    });
    const error = await failure(
      plain.send({ to: uniqueEmail(), subject: "s", text: "t", html: "<p>h</p>" }),
    );
    expect(error.code).toBe("misconfigured");
  });
});
