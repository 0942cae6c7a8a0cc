import { tenantSubject } from "../lib/banking/tenants";
import { generateKeyPair } from "../lib/crypto/envelope";
import { db } from "../lib/db/client";
import { approveFlow } from "../lib/flow/approve";
import { settleIngests } from "../lib/flow/bank-ingest";
import { handleBankCallback, handleBankStart } from "../lib/flow/banks";
import { handleCancelRequest } from "../lib/flow/cancel";
import { csrfToken } from "../lib/flow/csrf";
import { attachUser, createFlow } from "../lib/flow/flows";
import { handleKeyRegistration } from "../lib/flow/key-setup";
import { toS256Challenge } from "../lib/oauth/pkce";
import {
  approveSandboxAuthorization,
  denySandboxAuthorization,
} from "../lib/upstream/sandbox/consent";
import { createTestUser, ISSUER, newVerifier, signedInCookie } from "./oauth-fixtures";

/**
 * One person's browser going through a real flow of a partner's client, step
 * by step, through the same lib/flow handlers the hosted screens call: what
 * the flow analytics counts.
 */
export class FlowDriver {
  private constructor(
    readonly clientId: string,
    readonly partnerId: string,
    readonly flowId: string,
    private readonly flowCookie: string,
  ) {}

  private user: { id: string; email: string; publicKey: string | null } | null = null;
  private session = "";
  readonly keys = generateKeyPair();

  /** Authorize created the flow (at `now`, for the time to approve). */
  static async start(client: { clientId: string; partnerId: string | null }, now = new Date()) {
    const { flowId, setCookie } = await createFlow(
      {
        clientId: client.clientId,
        redirectUri: "https://app.example.com/callback",
        state: "s",
        codeChallenge: toS256Challenge(newVerifier()),
        scope: "accounts.read",
        locale: null,
        loginHint: null,
        challenge: null,
        renewConnectionId: null,
      },
      now,
    );
    return new FlowDriver(
      client.clientId,
      client.partnerId ?? "",
      flowId,
      setCookie.split(";")[0] ?? "",
    );
  }

  private get cookie() {
    return `${this.flowCookie}; ${this.session}`;
  }

  private async flow() {
    return db().flow.findUniqueOrThrow({ where: { id: this.flowId } });
  }

  private subject() {
    if (!this.user) throw new Error("sign in first");
    return tenantSubject(this.partnerId, this.user);
  }

  /** The person signed in: the flow moves to key setup (a new person has no key). */
  async signIn() {
    this.user ??= await createTestUser();
    this.session ||= await signedInCookie(this.user.id);
    await attachUser(
      { id: this.flowId, renewConnectionId: null },
      this.user,
      "user",
      this.subject(),
    );
    return this;
  }

  private post(path: string, body: string, type: string) {
    return new Request(`${ISSUER}${path}`, {
      method: "POST",
      headers: { "Content-Type": type, Origin: ISSUER, Cookie: this.cookie },
      body,
    });
  }

  /** The browser registered the key it made (POST /setup/key). */
  async setUpKey() {
    const response = await handleKeyRegistration(
      this.post(
        "/setup/key",
        JSON.stringify({
          csrf: csrfToken(await this.flow(), "key-setup"),
          publicKey: this.keys.publicKeyRawB64,
        }),
        "application/json",
      ),
    );
    if (response.status !== 200) throw new Error(`key setup answered ${response.status}`);
    if (this.user) this.user.publicKey = this.keys.publicKeyRawB64;
    return this;
  }

  /** Picks the sandbox bank; answers where the bank's Approve (or Deny) sends the browser back. */
  private async atBank(deny: boolean) {
    const response = await handleBankStart(
      this.post(
        "/banks/start",
        new URLSearchParams({
          csrf: csrfToken(await this.flow(), "bank"),
          bank: "Sandbox Fjordbank NO",
          country: "NO",
          psuType: "personal",
        }).toString(),
        "application/x-www-form-urlencoded",
      ),
    );
    const authorization =
      new URL(response.headers.get("location") ?? "").searchParams.get("authorization") ?? "";
    return (deny ? denySandboxAuthorization : approveSandboxAuthorization)(authorization) ?? "";
  }

  /** The bank's accounts were stored (the callback, then the work after the response). */
  async connectBank() {
    await this.bankCallback(await this.atBank(false));
    await settleIngests();
    return this;
  }

  /** The person refused the consent at the bank. */
  async denyAtBank() {
    await this.bankCallback(await this.atBank(true));
    return this;
  }

  /** The browser came back from the bank (again, for a reload). */
  bankCallback(url: string) {
    return handleBankCallback(new Request(url, { headers: { Cookie: this.cookie } }));
  }

  /** Approved on the consent screen at `now`. */
  async approve(now = new Date()) {
    if (!this.user) throw new Error("sign in first");
    await approveFlow(this.flowId, this.user.id, now);
    return this;
  }

  /** "Back to the partner" on the current screen. */
  async cancel() {
    const csrf = csrfToken(await this.flow(), "cancel");
    return handleCancelRequest(
      this.post(
        "/oauth/cancel",
        new URLSearchParams({ csrf }).toString(),
        "application/x-www-form-urlencoded",
      ),
    );
  }

  /** Signs in again (a reload of the continue link, or a second tab of the same flow). */
  async signInAgain() {
    if (!this.user) throw new Error("sign in first");
    await attachUser(
      { id: this.flowId, renewConnectionId: null },
      this.user,
      "user",
      this.subject(),
    );
  }

  /** The same key posted again (a browser that resumes a setup whose answer it lost). */
  async setUpKeyAgain() {
    return this.setUpKey();
  }
}
