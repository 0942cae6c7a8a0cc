import { canNameClient, verifyClientSecret } from "../keys/client-credentials";
import { OAuthError } from "./errors";
import { findClientForAuthentication } from "./queries";

/**
 * Client authentication for token and revoke (docs/protocol.md#client-authentication, /docs/token):
 * client_secret_basic or client_secret_post, never both.
 */

export interface ClientCredentials {
  clientId: string;
  clientSecret: string;
  method: "client_secret_basic" | "client_secret_post";
}

export interface AuthenticatedClient {
  id: string;
  partnerId: string | null;
  /** Its partner is suspended: it may revoke, but gets no new key (docs/partner-suspension.md). */
  partnerSuspended: boolean;
}

export function usesBasicAuth(request: Request): boolean {
  return /^Basic(\s|$)/i.test(request.headers.get("authorization") ?? "");
}

/**
 * Per /docs/token, base64-decode, split on the first colon, then percent-decode
 * each half (decodeURIComponent-style: `+` stays a plus).
 */
export function parseBasicCredentials(header: string): { clientId: string; clientSecret: string } {
  const encoded = /^Basic\s+([A-Za-z0-9+/=]+)\s*$/i.exec(header)?.[1];
  if (!encoded) throw new OAuthError("invalid_client", "malformed Basic authorization header");
  const decoded = Buffer.from(encoded, "base64").toString("utf8");
  const colon = decoded.indexOf(":");
  if (colon < 0) throw new OAuthError("invalid_client", "malformed Basic authorization header");
  try {
    return {
      clientId: decodeURIComponent(decoded.slice(0, colon)),
      clientSecret: decodeURIComponent(decoded.slice(colon + 1)),
    };
  } catch (cause) {
    throw new OAuthError("invalid_client", "malformed percent-encoding in Basic credentials", {
      cause,
    });
  }
}

export function readClientCredentials(
  request: Request,
  body: { clientId: string | null; clientSecret: string | null },
): ClientCredentials {
  const authorization = request.headers.get("authorization");
  const inBody = body.clientId !== null || body.clientSecret !== null;
  if (authorization && usesBasicAuth(request)) {
    // Both methods at once is invalid_request (docs/protocol.md#client-authentication).
    if (body.clientSecret !== null) {
      throw new OAuthError(
        "invalid_request",
        "use either HTTP Basic or client_secret_post, not both",
      );
    }
    const basic = parseBasicCredentials(authorization);
    if (body.clientId !== null && body.clientId !== basic.clientId) {
      throw new OAuthError("invalid_request", "client_id in the body does not match HTTP Basic");
    }
    return { ...basic, method: "client_secret_basic" };
  }
  if (inBody) {
    if (!body.clientId || !body.clientSecret) {
      throw new OAuthError("invalid_client", "client_id and client_secret are both required");
    }
    return {
      clientId: body.clientId,
      clientSecret: body.clientSecret,
      method: "client_secret_post",
    };
  }
  throw new OAuthError("invalid_client", "client authentication is required");
}

/**
 * Unknown client and wrong secret answer alike (/docs/errors). One statement reads
 * the client, both secret hashes and its partner's status; the secret is
 * compared here, in constant time, never in SQL.
 */
export async function authenticateClient(
  credentials: ClientCredentials,
  now = new Date(),
): Promise<AuthenticatedClient> {
  const client = canNameClient(credentials.clientId)
    ? await findClientForAuthentication(credentials.clientId)
    : null;
  if (!client || !verifyClientSecret(client, credentials.clientSecret, now)) {
    throw new OAuthError("invalid_client", "client authentication failed");
  }
  return {
    id: client.id,
    partnerId: client.partnerId,
    partnerSuspended: client.partnerSuspended,
  };
}

/**
 * RFC 6749 §5.2 unauthorized_client: the client proved who it is, but a
 * suspended partner's clients get no API key until the partner is resumed.
 * Checked after authentication, so a wrong secret learns nothing of it.
 */
export function assertClientMayObtainKeys(client: AuthenticatedClient): void {
  if (client.partnerSuspended) {
    throw new OAuthError(
      "unauthorized_client",
      "this partner is suspended; no API keys can be issued until it is resumed",
    );
  }
}
