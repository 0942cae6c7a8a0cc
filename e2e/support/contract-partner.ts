import { openEnvelope as openPublished } from "../../lib/docs/examples/open-envelope";
import { recordBankData, recordSecret } from "./secrets-seen";

/** The published opener; what it reveals is recorded for the log scan. */
export function openEnvelope<T>(privateKeyPkcs8B64: string, envelopeB64: string): T {
  const payload = openPublished<T>(privateKeyPkcs8B64, envelopeB64);
  recordBankData(payload);
  return payload;
}

/**
 * A partner application written from the partner docs alone: plain HTTP calls in
 * the published SDKs' shapes and the envelope opener the partner
 * documentation publishes (§8.2), sharing no code with the service itself.
 */

export class ContractPartner {
  constructor(
    private readonly baseUrl: string,
    private readonly client: { clientId: string; clientSecret: string; redirectUri: string },
  ) {}

  private basic(): string {
    const { clientId, clientSecret } = this.client;
    const pair = `${encodeURIComponent(clientId)}:${encodeURIComponent(clientSecret)}`;
    return `Basic ${Buffer.from(pair).toString("base64")}`;
  }

  async exchange(code: string, verifier: string): Promise<{ access_token: string; user: string }> {
    const response = await fetch(`${this.baseUrl}/oauth/token`, {
      method: "POST",
      headers: {
        Authorization: this.basic(),
        "Content-Type": "application/x-www-form-urlencoded",
        "User-Agent": "contract-partner/1.0",
      },
      body: new URLSearchParams({
        grant_type: "authorization_code",
        code,
        code_verifier: verifier,
        redirect_uri: this.client.redirectUri,
      }),
    });
    recordSecret("authorization code", code);
    if (!response.ok) throw new Error(`token exchange failed: ${response.status}`);
    const body = (await response.json()) as { access_token: string; user: string };
    recordSecret("api key", body.access_token);
    recordSecret("user", body.user);
    return body;
  }

  async revoke(key: string): Promise<number> {
    const response = await fetch(`${this.baseUrl}/oauth/revoke`, {
      method: "POST",
      headers: { Authorization: this.basic(), "Content-Type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ token: key, token_type_hint: "access_token" }),
    });
    return response.status;
  }

  /** A GET with the key; the status and JSON body (/docs/data). */
  async get<T>(key: string, path: string): Promise<{ status: number; body: T }> {
    const response = await fetch(`${this.baseUrl}${path}`, {
      headers: { "X-Api-Key": key, Accept: "application/json" },
    });
    return { status: response.status, body: (response.ok ? await response.json() : null) as T };
  }

  /** Query keys in the order from, to, limit, offset, only when given (/docs/data). */
  transactionsPath(
    accountId: string,
    query: { from?: string; to?: string; limit?: number; offset?: number },
  ): string {
    const parts: string[] = [];
    for (const name of ["from", "to", "limit", "offset"] as const) {
      const value = query[name];
      if (value !== undefined) parts.push(`${name}=${encodeURIComponent(String(value))}`);
    }
    const path = `/api/accounts/${encodeURIComponent(accountId)}/transactions`;
    return parts.length > 0 ? `${path}?${parts.join("&")}` : path;
  }

  async post(key: string, path: string, body: unknown) {
    const response = await fetch(`${this.baseUrl}${path}`, {
      method: "POST",
      headers: {
        "X-Api-Key": key,
        "Content-Type": "application/json",
        "User-Agent": "contract-partner/1.0",
      },
      body: JSON.stringify(body),
    });
    return {
      status: response.status,
      retryAfter: response.headers.get("retry-after"),
      body: (await response.json().catch(() => null)) as Record<string, unknown> | null,
    };
  }
}
