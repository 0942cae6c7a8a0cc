import * as client from "openid-client";

/**
 * Discovery with openid-client (v6). Bank Connect is an OAuth 2.0
 * authorization server (RFC 8414), not an OpenID provider: it publishes
 * /.well-known/oauth-authorization-server and no OpenID document, so
 * discovery() must be told `algorithm: "oauth2"`. Without it, discovery()
 * asks for /.well-known/openid-configuration and fails with a 404.
 */
export function discover(issuer: string, clientId: string, clientSecret: string) {
  const server = new URL(issuer); // e.g. "https://bank-connect.example", no trailing slash
  return client.discovery(server, clientId, clientSecret, undefined, {
    algorithm: "oauth2",
    // openid-client refuses plain http: allow it only for a local issuer in development.
    execute: server.protocol === "http:" ? [client.allowInsecureRequests] : [],
  });
}
