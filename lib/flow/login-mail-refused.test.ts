import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { newBrowserNonce, requestLoginChallenge, verifyLoginPin } from "../auth/login-challenges";
import { sessionCookieName } from "../auth/sessions";
import { addressKey, clientKey } from "../auth/sign-in-limits";
import { db } from "../db/client";
import { setSetting } from "../env";
import { CLIENT_IP_HEADER } from "../http/client-ip";
import { createTestClient, ISSUER, startTestFlow, uniqueEmail } from "../../test/oauth-fixtures";
import { startSmtpRelay, type SmtpRelay } from "../../test/smtp-relay";
import { CONTINUE_PATH } from "./continue";
import { csrfToken } from "./csrf";
import { handleLoginCode, handleLoginRequest } from "./login";

/**
 * The sign-in form when the mail provider does not take the mail, against a
 * real SMTP relay on loopback (smtp-server, RFC 5321) that refuses or accepts
 * as each test says, and then against a closed port. The form lands back on
 * /login saying the mail was not sent, with the address kept; nothing is
 * left that could sign in, the address's mail limits are not spent, and the
 * next try goes through.
 */

type Mode = "accept" | "refuse" | "busy";
let mode: Mode = "accept";
let relay: SmtpRelay;

beforeAll(async () => {
  relay = await startSmtpRelay(() =>
    mode === "refuse"
      ? { code: 554, message: "Relaying denied" }
      : mode === "busy"
        ? { code: 451, message: "Try again later" }
        : null,
  );
  // The service's own mailer, chosen by configuration as in production.
  setSetting("SMTP_URL", `smtp://127.0.0.1:${relay.port}`);
});

afterAll(() => relay.close());

const uniqueIp = () => `198.51.100.${randomBytes(1)[0]}-${randomBytes(4).toString("hex")}`;
const pair = (setCookie: string) => setCookie.split(";")[0] ?? "";

function formPost(path: string, body: Record<string, string>, cookie: string, clientIp: string) {
  return new Request(`${ISSUER}${path}`, {
    method: "POST",
    headers: {
      "Content-Type": "application/x-www-form-urlencoded",
      Origin: ISSUER,
      Cookie: cookie,
      [CLIENT_IP_HEADER]: clientIp,
    },
    body: new URLSearchParams(body).toString(),
  });
}

/** Where a 303 sends the browser: its path and query. */
function landing(response: Response) {
  expect(response.status).toBe(303);
  const location = new URL(response.headers.get("location") ?? "", ISSUER);
  return { path: location.pathname, query: Object.fromEntries(location.searchParams) };
}

/** The counts stored for this address's and this client's mail limits, summed over windows. */
async function mailCounts(email: string, clientIp: string) {
  const sum = async (prefix: string) => {
    const rows = await db().signInCounter.findMany({ where: { id: { startsWith: prefix } } });
    return rows.reduce((total, row) => total + row.count, 0);
  };
  return {
    addressMinute: await sum(`mail-address-minute:${addressKey(email)}:`),
    address: await sum(`mail-address:${addressKey(email)}:`),
    client: await sum(`mail-client:${clientKey(clientIp)}:`),
  };
}

const openChallenges = (email: string) =>
  db().loginChallenge.count({ where: { email, consumedAt: null } });

describe("sign-in when the mail provider does not take the mail", () => {
  it("a refusing relay: /login says the email was not sent, keeps the address, and the next try signs in and continues the flow", async () => {
    const client = await createTestClient();
    const { flowId, setCookie } = await startTestFlow(client);
    const flow = await db().flow.findUniqueOrThrow({ where: { id: flowId } });
    const email = uniqueEmail("refused");
    const clientIp = uniqueIp();
    const form = { email, csrf: csrfToken(flow, "login"), returnUrl: CONTINUE_PATH };

    mode = "refuse";
    const refused = await handleLoginRequest(
      formPost("/login/request", form, pair(setCookie), clientIp),
    );
    expect(landing(refused)).toEqual({
      path: "/login",
      query: { returnUrl: CONTINUE_PATH, email, error: "mail_failed" },
    });
    expect(relay.delivered.has(email)).toBe(false);
    // Nothing that could sign in was left behind, and the address's mail
    // limits were given back; the client address's request still counts.
    expect(await openChallenges(email)).toBe(0);
    expect(await mailCounts(email, clientIp)).toEqual({ addressMinute: 0, address: 0, client: 1 });

    // The same browser tries again at once (within the one-mail-a-minute limit).
    mode = "accept";
    const nonce = refused.headers.getSetCookie().map(pair);
    const cookie = [pair(setCookie), ...nonce].join("; ");
    const sent = await handleLoginRequest(formPost("/login/request", form, cookie, clientIp));
    expect(landing(sent).query).toEqual({ returnUrl: CONTINUE_PATH, email, sent: "1" });
    expect(await mailCounts(email, clientIp)).toEqual({ addressMinute: 1, address: 1, client: 2 });
    const code = /^\d{6}$/m.exec(relay.delivered.get(email) ?? "")?.[0] ?? "";
    expect(code).toMatch(/^\d{6}$/);

    const signedIn = await handleLoginCode(
      formPost("/login/code", { ...form, code }, cookie, clientIp),
    );
    expect(landing(signedIn).path).toBe(CONTINUE_PATH);
    expect(signedIn.headers.getSetCookie().some((c) => c.startsWith(sessionCookieName()))).toBe(
      true,
    );
  });

  it("a transient refusal (451) after a sent mail leaves that earlier mail's code working", async () => {
    mode = "accept";
    const email = uniqueEmail("earlier");
    const request = {
      email,
      locale: "en" as const,
      partnerName: null,
      flowId: null,
      returnUrl: null,
      browserNonce: newBrowserNonce(),
      clientIp: uniqueIp(),
      now: new Date(),
    };
    expect(await requestLoginChallenge(request)).toEqual({ status: "sent" });
    const first = await db().loginChallenge.findFirstOrThrow({ where: { email } });

    mode = "busy";
    const later = { ...request, now: new Date(request.now.getTime() + 60_000) };
    await expect(requestLoginChallenge(later)).rejects.toMatchObject({
      name: "MailError",
      code: "unavailable",
    });
    const open = await db().loginChallenge.findMany({ where: { email, consumedAt: null } });
    expect(open.map((challenge) => challenge.id)).toEqual([first.id]);
    const code = /^\d{6}$/m.exec(relay.delivered.get(email) ?? "")?.[0] ?? "";
    expect(await verifyLoginPin({ ...request, pin: code })).toMatchObject({ status: "ok" });
  });

  it("a relay that cannot be reached (closed port): the same screen state, nothing left open", async () => {
    await relay.close();
    const email = uniqueEmail("unreachable");
    const clientIp = uniqueIp();
    const answer = await handleLoginRequest(formPost("/login/request", { email }, "", clientIp));
    expect(landing(answer)).toEqual({ path: "/login", query: { email, error: "mail_failed" } });
    expect(await openChallenges(email)).toBe(0);
    expect(await mailCounts(email, clientIp)).toEqual({ addressMinute: 0, address: 0, client: 1 });
  });
});
