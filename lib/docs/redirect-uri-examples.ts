/**
 * The loopback redirect URIs /docs/flow shows, each with whether a client
 * may register it and why. lib/docs/redirect-uri-examples.test.ts checks
 * every row against the registration rules (lib/partners/redirect-uris.ts)
 * and the exact match on authorize, so the page cannot drift from them.
 */

export interface RedirectUriExample {
  uri: string;
  allowed: boolean;
  why: string;
}

/** How many redirect URIs a client may have (the test holds it to the registration rules). */
export const REDIRECT_URI_LIMIT = 10;

export const LOOPBACK_EXAMPLES: readonly RedirectUriExample[] = [
  { uri: "http://localhost:3000/callback", allowed: true, why: "localhost, on a port you choose" },
  { uri: "http://127.0.0.1:8080/callback", allowed: true, why: "the IPv4 loopback address" },
  {
    uri: "http://127.0.0.2/callback",
    allowed: true,
    why: "any address in 127.0.0.0/8; no port means port 80",
  },
  { uri: "http://[::1]:3000/callback", allowed: true, why: "the IPv6 loopback address" },
  {
    uri: "https://localhost:8443/callback",
    allowed: true,
    why: "https:// is allowed on every host",
  },
  {
    uri: "http://127.example.com/callback",
    allowed: false,
    why: "a host name that starts with 127. is not a loopback address",
  },
  {
    uri: "http://localhost.example/callback",
    allowed: false,
    why: "a host name that starts with localhost is not localhost",
  },
  {
    uri: "http://0.0.0.0:3000/callback",
    allowed: false,
    why: "0.0.0.0 is not a loopback address",
  },
  {
    uri: "http://192.168.1.20:3000/callback",
    allowed: false,
    why: "a private network address is not loopback: use https://",
  },
];

/** The port is part of the exact match: a registered URI and one the same but for its port. */
export const PORT_MATCH = {
  registered: "http://127.0.0.1:3000/callback",
  otherPort: "http://127.0.0.1:3001/callback",
  otherHost: "http://localhost:3000/callback",
} as const;
