import { createHash, randomBytes } from "node:crypto";
import { findLastMessage } from "../../lib/mail";
import { partnerWithRecipientKey } from "../../test/bank-data";
import { uniqueEmail } from "../../test/oauth-fixtures";
import { Browser, formFor, redirectOf } from "./browser";
import { basicAuth, clientAddress, FORM, formBody, send } from "./http";
import type { ClusterContext } from "./types";

/**
 * One person's hosted flow, each step on the next instance in turn (each
 * addressed directly, so which one serves it is certain): authorize on the
 * first, ask for the sign-in mail on the second, enter its code on the third,
 * consent, pick the sandbox bank, approve at the bank, come back, wait for the
 * connection and receive the relay, each on another instance than the step
 * before. Nothing of the flow lives in an instance: the flow cookie, the
 * session, the mail's code and the flow's step are in PostgreSQL. The code
 * the relay carries is then exchanged through the proxy, and the key reads
 * the connected accounts through the proxy.
 */

const POLL_MS = 200;

export async function hostedFlowAcrossInstances(context: ClusterContext): Promise<void> {
  const { proxy, instances, check, log } = context;
  const at = (step: number) => instances[step % instances.length] ?? "";
  const { client } = await partnerWithRecipientKey();
  const verifier = randomBytes(32).toString("base64url");
  const email = uniqueEmail("cluster");
  const browser = new Browser(proxy, clientAddress());
  const served: string[] = [];
  /** Follows the service's redirects, each on the next instance. */
  const follow = async (location: string) => {
    let url = location;
    for (let hops = 0; hops < 5; hops += 1) {
      const answer = await browser.get(next(), url);
      if (answer.status < 300 || answer.status > 399) return { ...answer, url };
      url = redirectOf(answer, url);
    }
    throw new Error(`more than 5 redirects from ${location}`);
  };
  let step = 0;
  function next() {
    const origin = at(step);
    served.push(new URL(origin).port);
    step += 1;
    return origin;
  }

  const authorize = new URLSearchParams({
    response_type: "code",
    client_id: client.clientId,
    redirect_uri: client.redirectUri,
    scope: "accounts.read",
    state: "cluster-state",
    code_challenge: createHash("sha256").update(verifier).digest("base64url"),
    code_challenge_method: "S256",
    response_mode: "form_post",
    login_hint: email,
  });
  const toLogin = redirectOf(
    await browser.get(next(), `/oauth/authorize?${authorize}`),
    "authorize",
  );
  const login = await browser.get(next(), toLogin);
  check(login.status === 200, `the login screen answered ${login.status} on another instance`);

  const request = formFor(login.body, "/login/request");
  const sent = await browser.post(next(), "/login/request", { ...request.fields, email });
  const codeScreen = await browser.get(next(), redirectOf(sent, "sign-in mail"));
  const mail = await findLastMessage(email);
  if (!mail?.code) throw new Error("no sign-in mail with a code in the outbox");
  const codeForm = formFor(codeScreen.body, "/login/code");
  const signedIn = await browser.post(next(), "/login/code", {
    ...codeForm.fields,
    email,
    code: mail.code,
  });
  const consent = await follow(redirectOf(signedIn, "sign-in code"));
  check(
    consent.status === 200 && new URL(consent.url, proxy).pathname === "/consent",
    `after signing in on another instance: ${consent.url} answered ${consent.status}`,
  );

  const approve = formFor(consent.body, "/consent/approve");
  const toBanks = redirectOf(
    await browser.post(next(), "/consent/approve", approve.fields),
    "consent",
  );
  const banks = await browser.get(next(), toBanks);
  const pick = formFor(banks.body, "/banks/start");
  const toBank = redirectOf(await browser.post(next(), "/banks/start", pick.fields), "bank choice");
  const bankPage = await browser.get(next(), toBank);
  const decision = formFor(bankPage.body, "/sandbox/authorize/decision");
  const back = redirectOf(
    await browser.post(next(), "/sandbox/authorize/decision", {
      ...decision.fields,
      decision: "approve",
    }),
    "the bank's approval",
  );
  let target = redirectOf(await browser.get(next(), back), "the bank's callback");
  for (let i = 0; i < 150 && new URL(target, proxy).pathname === "/banks/progress"; i += 1) {
    const status = JSON.parse((await browser.get(next(), "/banks/progress/status")).body) as {
      ready?: boolean;
      state?: string;
    };
    if (status.state === "failed") throw new Error("connecting the sandbox bank failed");
    if (status.ready) target = "/banks/finish";
    else await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
  const relay = await browser.get(next(), target);
  const fields = formFor(relay.body, client.redirectUri).fields;
  check(
    relay.status === 200 && fields.state === "cluster-state" && Boolean(fields.code),
    `the relay answered ${relay.status} without the code and state`,
  );

  const token = await send(`${proxy}/oauth/token`, {
    method: "POST",
    headers: { ...FORM, ...basicAuth(client.clientId, client.clientSecret) },
    body: formBody({
      grant_type: "authorization_code",
      code: fields.code ?? "",
      code_verifier: verifier,
    }),
    from: browser.address,
  });
  check(token.status === 200, `the relayed code's exchange answered ${token.status} ${token.body}`);
  const key =
    token.status === 200 ? (JSON.parse(token.body) as { access_token: string }).access_token : "";
  const accounts = await send(`${proxy}/api/accounts`, {
    headers: { Authorization: `Bearer ${key}` },
    from: browser.address,
  });
  const count = accounts.status === 200 ? (JSON.parse(accounts.body) as unknown[]).length : -1;
  check(
    accounts.status === 200 && count > 0,
    `the new key read ${accounts.status} with ${count} accounts`,
  );
  log(
    `${step} steps over instances on ports ${[...new Set(served)].join(", ")} ` +
      `(in turn: ${served.join(" ")}); code exchanged, ${count} accounts read through the proxy`,
  );
}
