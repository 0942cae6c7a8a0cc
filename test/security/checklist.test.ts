import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";

/**
 * Keeps test/security/checklist.md honest: every security checklist item has
 * a row, and every proof names an existing file that really declares a test
 * (or suite) with that exact title.
 */

const ROOT = path.resolve(import.meta.dirname, "../..");
const CHECKLIST = path.join(import.meta.dirname, "checklist.md");

const CHECKLIST_ITEMS = [
  "open redirect variants",
  "never redirecting before validation",
  "PKCE downgrade (plain / missing method) / wrong / missing verifier",
  "code replay sequential and concurrent (exactly one winner; replay revokes the minted key)",
  "code bound to client and redirect URI",
  "expired codes",
  "client-auth edge cases (malformed Basic, both methods at once, percent-encoding in Basic, rotated secrets old/new/expired)",
  "revoke of another client's key (must not revoke it)",
  "relay page escaping and headers",
  "framing refused (X-Frame-Options / CSP frame-ancestors on every HTML screen)",
  "page scripts allowed only by a fresh per-request nonce that no client can choose",
  "CSRF on every browser POST",
  "partner self-service sign-up only where the operator allows it, one partner per person, no name another partner has",
  "look-alike partner names: sign-up names and branding display names normalized (NFKC, one space), invisible and bidi characters refused, confusable skeletons (UTS #39) unique",
  "a decryption-key replacement never replaces a key the owner did not confirm",
  "sign-out revokes the session server-side; CSRF on sign-out",
  "stale sessions re-confirm before approving (partner-key mode)",
  "magic link scanner safety and cross-browser use",
  "PIN attempt lock",
  "sign-in limits hold when the rate-limit store fails",
  "PIN guess budget per address and per client address",
  "PIN sign-in behind a shared client address: its spent budget never refuses an address without failures, and one person gets one guess",
  "identical answers for unknown emails",
  "rate limits not bypassable with forged X-Forwarded-For",
  "two deployments sharing one Redis never throttle each other: every Redis key starts with the deployment's prefix",
  "no handler sees a client's own value of a header the service sets (client address, request id, the edge's headers), on either lane",
  "request targets that are not a path (asterisk, absolute form) answered 400: no redirect to the host a target names, nothing cacheable",
  "405s name the served methods (Allow); 401s name their scheme (Basic for client auth, a bare Bearer challenge when no key was sent)",
  "cross-tenant access by id (IDOR) on every data endpoint",
  "no secrets, keys, codes or bank data in logs (a test scans captured logs)",
  "no secrets, keys, codes or bank data in trace spans",
  "metrics only for the holder of the metrics token",
  "partner suspension: its keys read nothing, no new keys, revocation still works, resume restores",
  "oversize request bodies refused with 413 before any handler runs, never acted on in part",
  "SSRF: IPv6 addresses carrying an IPv4 address (NAT64, 6to4, Teredo, IPv4-compatible, IPv4-mapped)",
  "SSRF: a webhook endpoint address is refused at save unless https and every address its name resolves to is public",
  "SSRF: every webhook delivery checks the address again and connects to the checked address (a DNS answer moved to a private address is refused); redirects are never followed",
  "webhook signatures (Standard Webhooks, HMAC-SHA256) verify with a maintained library and fail with a wrong secret; after a rotation both secrets sign for 24 hours; secrets are stored sealed",
  "a partner never sees or changes another partner's webhook endpoints or deliveries",
  "data sealed to a user's key stays openable after the partner installs a recipient key",
  "production build refuses development secrets and demo defaults",
  "LOCAL_ONLY only on a loopback issuer (localhost, [::1], 127.0.0.0/8 literals); production refuses an obviously guessable SECRET_KEY",
  "the demo keeps no user keys server-side",
  "exhausted connection pool answers 503, never 500",
  "syncs cannot starve sign-in, block the server or half-write (budget, deadline, size caps)",
  "security events are audited without secrets",
  "partner security log: no end user's network address; paging by an opaque cursor bound to the partner (another's or a changed one: 400)",
  "a user's key backup is encrypted; the plaintext key only as an explicit developer export",
  "key setup is not left without a saved backup, and a reload or Back never loses a key the browser holds",
  "a backup passphrase must be hard to guess, not only 10 characters long: estimated in the browser (zxcvbn-ts, the screen's language), refused below score 3",
  "starting over with a new key leaves nothing sealed to the old key and revokes the API keys that read it",
  "the unlocked key stays with one tab and is forgotten once the relay is posted",
  "a finished, expired or replaced flow acts on nothing: no second relay, read-only lookups, links only to the partner's registered origin",
  "a bank-connection progress status only for the flow's own browser",
  "a partner never reads a half-stored first history",
  "keyed hashes and MACs compared in constant time, through one helper",
  "server-secret rotation (old hashes verify only while SECRET_KEY_PREVIOUS is set, compared in constant time)",
  "sign-in mail over SMTP never reported sent when the relay refused it",
  'a person\'s "My access" actions act only on their own rows (IDOR)',
  'CSRF and same Origin on every "My access" action',
  "ending a partner's access refuses its keys at once (no cache: every request reads the key's row)",
  "removing a bank or deleting everything leaves no row of the data behind",
  "My access and its deleted page link back to a partner only at a site it registered, never at an address a link brought",
  "irreversible actions (end access, remove a bank, start over, delete everything) need a fresh sign-in: a stale or copied session is sent to sign in again, nothing changes, and a start-over or deletion is mailed",
  "a user-key approval needs proof that the browser holds the private key (the page's sealed challenge), never the public key and a session alone",
  "the holder's location (X-Psu-Geo-Location) reaches the bank only in the GEO:<lat>;<long> form and only with a public IP address and a user agent, like every PSU header",
  "bank data matching keys (a pending transaction and its booked version) are keyed hashes, never plaintext",
  "passkeys: the relying-party id is the issuer's host and the origin its own; an answer made on another origin or for another relying-party id is refused",
  "passkeys: user verification required at registration and at every sign-in",
  "passkey challenges are single-use (deleted when checked), expire after 5 minutes and belong to one ceremony and person",
  "a passkey's signature counter must grow unless it stays 0 on both sides; counter, backup state and last use are recorded",
  "an unknown or removed passkey, or an answer whose signature does not verify, signs nobody in",
  "a passkey of another account than the address on the sign-in page (typed or login_hint) makes no session and hands out no key; only its own address is named",
  "a passkey added to an account is told to its person by mail (its name, when, and /account to remove it), in their language; a refused registration mails nothing",
  "passkey sign-ins limited per client address like the sign-in mails",
  "the key a passkey holds is handed over only after a verified assertion of that passkey and only when it wraps the registered key; starting over or registering another key drops it",
  "My access passkeys: another person's passkey is neither listed, removed nor given a key (IDOR); the last passkey holding the key is never removed without a confirmed backup, not even by two removals at once",
  "adding or removing a passkey needs same Origin, its CSRF token (the account action's, or the flow's key-setup token) and a fresh sign-in",
  "a passkey tap is a fresh sign-in of the passkey's person: a new session replaces the browser's old one and re-confirms an irreversible change or a partner-key approval",
  "passkey events audited (added, removed, used, refused) and no credential id, public key, wrapped key or ceremony data in logs",
  "the key a passkey holds is wrapped in the browser: the PRF output never reaches the service; the wrapped key opens only with that passkey's output and its public key is bound and checked",
  "the command-line sign-in sends its code only to http://127.0.0.1:<port>/callback, after checking the port and the S256 challenge; a bad request is never redirected",
  "command-line sign-in codes: single use, valid minutes, redeemed only with the PKCE verifier; a wrong verifier burns the code, a replay with the right one revokes its key",
  "CSRF and same Origin on the command-line sign-in's confirmation and key setup, the token bound to the session and to the request's port, challenge and state",
  "a partner's key is refused 403 on the bank list and on starting a bank connection; a person's own key lists banks, connects them and reads only for its own person",
  "a person's own keys on My access: made and revoked only by that person (another person's or an app's key: 404), with same Origin, the action's own CSRF token and a fresh sign-in; a made key's value is shown once and never stored",
  "a sign-in mail queued for another try holds no address, link or code in the clear in the job table (sealed under SECRET_KEY) and is delivered once",
  "renewing a bank consent (`GET /account/connections/{id}/renew`) starts the bank's consent only for the signed-in person's own connection; the reminder mail goes once per consent",
] as const;

interface Proof {
  file: string;
  title: string;
}

/** The table rows: item name → its proofs (`` `file` › title ``, separated by <br>). */
function parseChecklist(markdown: string): Map<string, Proof[]> {
  const rows = new Map<string, Proof[]>();
  for (const line of markdown.split("\n")) {
    const cells = /^\|(.*)\|\s*$/.exec(line)?.[1]?.split("|");
    if (!cells || cells.length !== 2) continue;
    const [item = "", proofCell = ""] = cells.map((cell) => cell.trim());
    if (item === "Item" || /^-+$/.test(item)) continue;
    const proofs = proofCell.split("<br>").map((entry) => {
      const match = /^`([^`]+)` › (.+)$/.exec(entry.trim());
      if (!match) throw new Error(`unreadable proof for "${item}": ${entry}`);
      return { file: match[1] ?? "", title: (match[2] ?? "").trim() };
    });
    if (rows.has(item)) throw new Error(`"${item}" has two rows`);
    rows.set(item, proofs);
  }
  return rows;
}

/** A test or suite with exactly this title, as a string literal of a test call. */
function declaresTitle(source: string, title: string): boolean {
  return ['"', "'", "`"].some((quote) => {
    const literal = `${quote}${title}${quote}`;
    let at = source.indexOf(literal);
    while (at !== -1) {
      const before = source.slice(Math.max(0, at - 40), at);
      if (/\b(it|test|describe)(\.\w+)*(\([^()]*\))?\(\s*$/.test(before)) return true;
      at = source.indexOf(literal, at + 1);
    }
    return false;
  });
}

describe("the security checklist map (test/security/checklist.md)", () => {
  const rows = parseChecklist(readFileSync(CHECKLIST, "utf8"));

  it("has a row for every checklist item and no other", () => {
    expect([...rows.keys()].sort()).toEqual([...CHECKLIST_ITEMS].sort());
  });

  it.each(CHECKLIST_ITEMS)("proves %s with existing files and test titles", (item) => {
    const proofs = rows.get(item) ?? [];
    expect(proofs.length).toBeGreaterThan(0);
    for (const { file, title } of proofs) {
      const absolute = path.join(ROOT, file);
      expect(existsSync(absolute), `${file} does not exist`).toBe(true);
      expect(
        declaresTitle(readFileSync(absolute, "utf8"), title),
        `${file} has no test titled "${title}"`,
      ).toBe(true);
    }
  });

  it("notices a missing item, a missing file and a title that is not a test", () => {
    const good =
      "| Item | Proof |\n| --- | --- |\n| expired codes | `lib/oauth/token.test.ts` › expires after 300 seconds |";
    expect(parseChecklist(good).get("expired codes")).toEqual([
      { file: "lib/oauth/token.test.ts", title: "expires after 300 seconds" },
    ]);
    expect(parseChecklist(good).has("PIN attempt lock")).toBe(false);
    expect(existsSync(path.join(ROOT, "lib/oauth/no-such.test.ts"))).toBe(false);
    const source = 'it("expires after 300 seconds", () => {});\nconst note = "not a test";';
    expect(declaresTitle(source, "expires after 300 seconds")).toBe(true);
    expect(declaresTitle(source, "not a test")).toBe(false);
    expect(declaresTitle(source, "expires after 300")).toBe(false);
    expect(() => parseChecklist("| expired codes | lib/oauth/token.test.ts expires |")).toThrow(
      /unreadable proof/,
    );
  });
});
