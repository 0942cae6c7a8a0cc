import { createHash, randomBytes } from "node:crypto";
import { createServer } from "node:http";
import { exportJWK, generateKeyPair } from "jose";
import Provider from "oidc-provider";
import { connectAdapter, PostgresAdapter } from "./adapter";
import { BENCH_CLIENT } from "./client";

/**
 * The token exchange's baseline: panva's oidc-provider with a PostgreSQL
 * adapter, configured for the same grant the service answers (authorization
 * code + PKCE S256, client_secret_basic, an opaque access token, no ID token
 * and no refresh token). Started as a child process:
 *
 *   node <compiled server.ts> <port> <database-url> <pool-size>   (baselines.ts compiles it)
 *
 * `POST /__bench/mint?count=N` mints N codes directly through its models
 * (a Grant and an AuthorizationCode each, written by the adapter) and answers
 * [{code, verifier}], so the run redeems codes it never had to authorize.
 */

const SCOPE = "accounts.read";

const [port = "0", databaseUrl = "", poolSize = "10"] = process.argv.slice(2);

async function main() {
  await connectAdapter(databaseUrl, Number(poolSize));
  const { privateKey } = await generateKeyPair("ES256", { extractable: true });
  const issuer = `http://127.0.0.1:${port}`;
  const provider = new Provider(issuer, {
    adapter: PostgresAdapter,
    clients: [
      {
        client_id: BENCH_CLIENT.client_id,
        client_secret: BENCH_CLIENT.client_secret,
        redirect_uris: [BENCH_CLIENT.redirect_uri],
        grant_types: ["authorization_code"],
        response_types: ["code"],
        token_endpoint_auth_method: "client_secret_basic",
        id_token_signed_response_alg: "ES256",
      },
    ],
    scopes: ["openid", SCOPE],
    pkce: { required: () => true },
    features: { devInteractions: { enabled: false } },
    cookies: { keys: [randomBytes(32).toString("hex")] },
    jwks: { keys: [{ ...(await exportJWK(privateKey)), alg: "ES256", use: "sig" }] },
    findAccount: (_ctx: unknown, sub: string) => ({ accountId: sub, claims: () => ({ sub }) }),
    issueRefreshToken: () => false,
    ttl: { AccessToken: 365 * 24 * 3600, AuthorizationCode: 300, Grant: 365 * 24 * 3600 },
  });
  const client = await provider.Client.find(BENCH_CLIENT.client_id);
  if (!client) throw new Error("the bench client is missing");

  async function mint(count: number) {
    const minted: { code: string; verifier: string }[] = [];
    for (let i = 0; i < count; i += 1) {
      const accountId = `user-${randomBytes(8).toString("hex")}`;
      const grant = new provider.Grant({ accountId, clientId: BENCH_CLIENT.client_id });
      grant.addOIDCScope(SCOPE);
      const grantId = await grant.save();
      const verifier = randomBytes(32).toString("base64url");
      const code = await new provider.AuthorizationCode({
        accountId,
        grantId,
        client,
        redirectUri: BENCH_CLIENT.redirect_uri,
        scope: SCOPE,
        codeChallenge: createHash("sha256").update(verifier).digest("base64url"),
        codeChallengeMethod: "S256",
      }).save();
      minted.push({ code, verifier });
    }
    return minted;
  }

  const callback = provider.callback();
  createServer((request, response) => {
    const url = new URL(request.url ?? "/", issuer);
    if (url.pathname !== "/__bench/mint") {
      void callback(request, response);
      return;
    }
    request.resume();
    mint(Number(url.searchParams.get("count") ?? "1")).then(
      (minted) => {
        response.writeHead(200, { "Content-Type": "application/json" });
        response.end(JSON.stringify(minted));
      },
      (error: unknown) => {
        response.writeHead(500);
        response.end(String(error));
      },
    );
  }).listen(Number(port), "127.0.0.1", () => console.log("ready"));
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
