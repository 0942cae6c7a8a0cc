import Link from "next/link";
import { CodeBlock } from "../_components/code-block";
import { DocsTable } from "../_components/docs-table";
import { Example } from "../_components/example";

const REASONS: [reason: string, status: number, action: string][] = [
  ["reconnect_needed", 409, "send the user through the flow again, with renew_connection"],
  ["consent_withdrawn", 409, "the user withdrew consent at the bank; a new connection is needed"],
  ["uid_outdated", 409, "a renewal replaced the uid: read /api/accounts again and retry once"],
  [
    "psu_present_required",
    409,
    "the bank shares data only with the holder present: sync while they are, sending the headers in missingPsuHeaders",
  ],
  [
    "psu_headers_missing",
    409,
    "the holder was present, but the bank also requires the headers in missingPsuHeaders: send them too, or sync without any",
  ],
  ["rate_limited", 429, "the bank throttles: wait Retry-After seconds"],
  ["bank_error", 502, "the bank failed; try later"],
  [
    "transient",
    503,
    "network or upstream fault, or the service was busy; retry (after Retry-After)",
  ],
  [
    "partner_app_inactive",
    503,
    "the service's application at the aggregator is not active; the user cannot fix it",
  ],
];

const PSU_HEADERS_MISSING = `HTTP/1.1 409 Conflict
Content-Type: application/json

{"status":409,"reason":"psu_headers_missing","missingPsuHeaders":["X-Psu-Geo-Location"]}`;

export default function SyncPage() {
  return (
    <>
      <h1>Sync</h1>
      <p>
        The service never holds an account&apos;s bank uid in plaintext: you open{" "}
        <code>uidEnc</code> (see <Link href="/docs/envelopes">envelopes</Link>) and send the uid
        with the sync call. The service fetches new balances and transactions (from 7 days before
        the last sync), seals and stores each transaction once, and forgets the uid.
      </p>
      <p>
        Skip accounts whose <code>needsReconnect</code> is true: their sync cannot succeed. An
        account whose consent was withdrawn is not flagged that way (a reconnect cannot help it):
        its sync answers <code>consent_withdrawn</code>.
      </p>

      <h2>
        <code>POST /api/accounts/{"{id}"}/sync</code>
      </h2>
      <p>
        Body <code>{'{"uid": "…"}'}</code>; answers <code>{"{newTransactions, totalFetched}"}</code>
        .
      </p>
      <Example name="syncOne" />

      <h2>
        <code>POST /api/sync</code>
      </h2>
      <p>
        Body <code>{'{"items": [{"accountId": "…", "uid": "…"}, …]}'}</code>; answers 200{" "}
        <code>
          {"{accounts, newTransactions, failures: [{accountId, reason, bankErrorCode?}]}"}
        </code>
        . Accounts whose consent was withdrawn are left out. Retry the <code>uid_outdated</code>{" "}
        ones once, after reading <code>/api/accounts</code> again. An account the service could not
        sync this time appears as <code>transient</code>; the accounts synced before it are stored
        and counted. The whole call answers 503 <code>transient</code> with <code>Retry-After</code>{" "}
        only when no account could be synced.
      </p>
      <Example name="syncBulk" />

      <h2>Failure reasons</h2>
      <p>
        A failed single sync answers <code>{"{status, reason, bankErrorCode?}"}</code> (and{" "}
        <code>missingPsuHeaders</code> with the two PSU reasons) with the reason&apos;s status and,
        where the bank gave one, an integer <code>Retry-After</code>. The service runs a limited
        number of syncs at once, each within a time limit: a sync that finds no free slot or runs
        out of time answers 503 <code>transient</code> with <code>Retry-After</code> and stores
        nothing of that account. In a bulk sync the same reasons appear per account in{" "}
        <code>failures</code>. Branch on <code>reason</code>, never on the HTTP status alone; pass
        unknown reasons through.
      </p>
      <DocsTable
        head={["reason", "status", "what to do"]}
        rows={REASONS.map(([reason, status, action]) => ({
          key: reason,
          cells: [<code key="reason">{reason}</code>, status, action],
        }))}
      />
      <p>
        A 429 <em>without</em> a body is the service&apos;s own rate limit, not the bank&apos;s: see{" "}
        <Link href="/docs/errors">limits</Link>.
      </p>

      <h2>The account holder present</h2>
      <p>
        Some banks share data only while the holder is present. When you sync while the user is on
        your page, forward their request details: <code>X-Psu-Ip-Address</code> and{" "}
        <code>X-Psu-User-Agent</code> (both required), and optionally <code>X-Psu-Referer</code>,{" "}
        <code>X-Psu-Accept</code>, <code>X-Psu-Accept-Language</code>,{" "}
        <code>X-Psu-Accept-Charset</code>, <code>X-Psu-Accept-Encoding</code> and{" "}
        <code>X-Psu-Geo-Location</code> (the user&apos;s position as{" "}
        <code>GEO:&lt;latitude&gt;;&lt;longitude&gt;</code>, e.g. <code>GEO:60.1699;24.9384</code>;
        another form is not forwarded). They are passed to the bank only for keys issued through a
        Connect client and only with a public IP address and a user agent. Never send them from
        background jobs.
      </p>
      <p>
        A bank may require more of these headers on a sync with the holder present; the service
        knows which from the bank list, for each connection. A sync that forwards some PSU headers
        but not all that the bank requires is refused before the bank is asked, naming what is
        missing:
      </p>
      <CodeBlock code={PSU_HEADERS_MISSING} />
      <p>
        When the bank itself refuses for that reason, the answer is the same, with{" "}
        <code>{'"bankErrorCode":"PSU_HEADER_NOT_PROVIDED"'}</code>. Send the listed headers too the
        next time the user is present, or sync without any PSU header meanwhile: sending the same
        headers again repeats the refusal. A bank that refuses a sync without PSU headers answers{" "}
        <code>psu_present_required</code>, whose <code>missingPsuHeaders</code> lists every header
        to send with the user present. In a bulk sync both appear per account in{" "}
        <code>failures</code>, with the same <code>missingPsuHeaders</code>. The sandbox bank{" "}
        <em>Sandbox Scenario DK: psu headers missing</em> requires <code>X-Psu-Geo-Location</code>,
        to try this before going live.
      </p>
    </>
  );
}
