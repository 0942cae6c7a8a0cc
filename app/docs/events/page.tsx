import Link from "next/link";
import { WEBHOOK_EVENT_DOCS } from "@/lib/api/webhook-events";
import {
  VERIFY_NODE,
  VERIFY_PYTHON,
  VERIFY_PYTHON_LIBRARY,
  WEBHOOK_PAYLOAD_EXAMPLE,
} from "@/lib/docs/webhook-snippets";
import { DocsTable } from "../_components/docs-table";
import { CodeBlock } from "../_components/code-block";

const HEADERS: [name: string, what: string][] = [
  [
    "webhook-id",
    "The event's id (msg_…). Every retry and every replay keeps it: use it as the idempotency key.",
  ],
  ["webhook-timestamp", "When this attempt was signed, in Unix seconds."],
  [
    "webhook-signature",
    "v1, and the base64 HMAC-SHA256 signature; two of them, space-separated, for 24 hours after a secret rotation.",
  ],
  ["content-type", "application/json"],
  ["user-agent", "BankConnect-Webhooks/1"],
];

const REASONS: [reason: string, what: string][] = [
  ["person", "The person ended your access at My access."],
  ["start_over", "The person replaced their key: the data sealed to the old one is gone."],
  ["account_deleted", "The person deleted their account and everything in it."],
  ["partner_revoked", "Your client revoked its key at POST /oauth/revoke."],
  ["code_replay", "An authorization code was used twice; the key its first use gave is revoked."],
];

const WAITS = "5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 14 h, 20 h, 20 h";

export default function EventsPage() {
  return (
    <>
      <h1>Events (webhooks)</h1>
      <p>
        Hear what happens to the people you serve as it happens, instead of from a 401, 409 or 503
        on your next call: the service POSTs a signed event to each of your webhook endpoints that
        asked for its type. Add endpoints in the dashboard (Webhooks) or with{" "}
        <code>POST /api/partner/webhooks</code>; the events are in the{" "}
        <Link href="/docs/reference">API reference</Link> too (OpenAPI 3.1 <code>webhooks</code>).
      </p>

      <h2 id="address-rules">Endpoint addresses</h2>
      <ul>
        <li>
          <code>https://</code> only; the name must resolve to public addresses only (private,
          loopback, link-local, shared, multicast and other reserved ranges are refused), checked
          when you save the endpoint and again before every delivery.
        </li>
        <li>
          The connection goes to exactly the address checked: a DNS answer that changes to a private
          address later is not reached.
        </li>
        <li>
          The signing secret (<code>whsec_…</code>) is shown once, when the endpoint is made or its
          secret rotated.
        </li>
      </ul>

      <h2 id="payload">Payload</h2>
      <p>JSON with ids only: never bank data, names, amounts or addresses.</p>
      <CodeBlock code={WEBHOOK_PAYLOAD_EXAMPLE.trimEnd()} />
      <DocsTable
        head={["Header", "What it is"]}
        rows={HEADERS.map(([name, what]) => ({
          key: name,
          cells: [<code key="name">{name}</code>, what],
        }))}
      />

      <h2 id="types">Types</h2>
      <p>
        Every event has <code>client_id</code> (your client it is for) and <code>user</code> (the
        subject of your key: the <code>user</code> field of the token response). Connection events
        add the <code>connection_id</code> (the <code>sessionId</code> of the data API) and its{" "}
        <code>account_ids</code>.
      </p>
      <DocsTable
        head={["Type", "When", "Extra fields"]}
        rows={WEBHOOK_EVENT_DOCS.map((event) => ({
          key: event.type,
          cells: [
            <code key="type">{event.type}</code>,
            event.description,
            event.fields.length === 0
              ? "—"
              : event.fields.map((field, index) => (
                  <span key={field}>
                    {index > 0 ? ", " : null}
                    <code>{field}</code>
                  </span>
                )),
          ],
        }))}
      />
      <p>
        The <code>reason</code> of <code>access.ended</code>:
      </p>
      <DocsTable
        head={["reason", "What happened"]}
        rows={REASONS.map(([reason, what]) => ({
          key: reason,
          cells: [<code key="reason">{reason}</code>, what],
        }))}
      />

      <h2 id="verifying-a-signature">Verifying a signature</h2>
      <p>
        The headers follow the <a href="https://www.standardwebhooks.com/">Standard Webhooks</a>{" "}
        specification. Verify every delivery on the body exactly as received: HMAC-SHA256, keyed
        with the base64-decoded part of the secret after <code>whsec_</code>, over{" "}
        <code>{"{webhook-id}.{webhook-timestamp}.{body}"}</code>, base64; accept when one{" "}
        <code>v1,</code> entry of <code>webhook-signature</code> matches (in constant time), and
        refuse a <code>webhook-timestamp</code> more than 5 minutes from your clock.
      </p>
      <h3>Node</h3>
      <p>
        With the maintained <code>standardwebhooks</code> package (
        <code>npm install standardwebhooks</code>):
      </p>
      <CodeBlock code={VERIFY_NODE.trimEnd()} />
      <h3>Python</h3>
      <p>With the standard library only:</p>
      <CodeBlock code={VERIFY_PYTHON.trimEnd()} />
      <p>
        Or with the maintained <code>standardwebhooks</code> package (
        <code>pip install standardwebhooks</code>):
      </p>
      <CodeBlock code={VERIFY_PYTHON_LIBRARY.trimEnd()} />
      <p>
        The Standard Webhooks libraries for Go, Java, Ruby, PHP, Rust, C# and more verify these
        deliveries as they are.
      </p>

      <h2 id="retries">Retries</h2>
      <p>
        Any <code>2xx</code> within 10 seconds delivers. Anything else is tried again: another
        status (a redirect too: none is followed), no answer within 10 seconds, a failed connection,
        or an address the rules refuse at that moment. The waits between attempts are {WAITS}: 10
        attempts over about three days. Each retry keeps the <code>webhook-id</code> and the body;
        only <code>webhook-timestamp</code> and the signature are new. At most 1 KiB of your answer
        is read: answer quickly, work afterwards.
      </p>
      <ul>
        <li>
          <strong>Idempotency:</strong> an event may come more than once (a lost answer, a replay).
          Keep the <code>webhook-id</code>s you handled and skip one you have seen.
        </li>
        <li>
          <strong>Ordering is not promised:</strong> a retry comes after later events. Use{" "}
          <code>timestamp</code>, and read the current state from the data API when order matters.
        </li>
        <li>
          <strong>Failing endpoints:</strong> an endpoint that answered no attempt successfully
          during a delivery&apos;s whole schedule is disabled, and your owners are mailed. Fix it,
          turn it on again in the dashboard, and replay the deliveries you need (same{" "}
          <code>webhook-id</code>).
        </li>
      </ul>

      <h2 id="secret-rotation">Secret rotation</h2>
      <p>
        Rotating the secret shows the new one once. For the next 24 hours every delivery is signed
        with both the new and the previous secret, so a receiver holding either accepts it while you
        deploy the new one.
      </p>

      <h2 id="reminders">Reminders to the person</h2>
      <p>
        Some days before a bank consent ends (7 by default), when <code>connection.expiring</code>{" "}
        is sent, the person is mailed once, in their language, with one link that renews the consent
        at their bank, and My access shows the date. A renewal keeps the connection and account ids
        and sends <code>connection.renewed</code> with the new <code>valid_until</code>; you can
        also start one yourself with <Link href="/docs/flow">renew_connection</Link>. No reminder
        goes to a person whose every partner&apos;s access to that bank has ended.
      </p>
    </>
  );
}
