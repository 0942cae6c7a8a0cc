import Link from "next/link";
import type { ReactNode } from "react";
import {
  LOOPBACK_EXAMPLES,
  PORT_MATCH,
  REDIRECT_URI_LIMIT,
} from "@/lib/docs/redirect-uri-examples";
import { DocsTable } from "../_components/docs-table";
import { Example } from "../_components/example";

const AUTHORIZE_PARAMETERS: [parameter: string, value: ReactNode][] = [
  [
    "response_type",
    <>
      <code>code</code> (required)
    </>,
  ],
  [
    "client_id",
    <>
      your <code>obc_…</code> client id
    </>,
  ],
  [
    "redirect_uri",
    <>
      a registered URI, matched character for character (see{" "}
      <a href="#redirect-uris">redirect URIs</a>)
    </>,
  ],
  [
    "scope",
    <>
      <code>accounts.read</code> (the only scope)
    </>,
  ],
  ["state", "random, at least 16 bytes; echoed in the relay (success and error)"],
  [
    "code_challenge",
    <>
      <code>BASE64URL(SHA256(verifier))</code>, 43 characters (required)
    </>,
  ],
  [
    "code_challenge_method",
    <>
      <code>S256</code> (the only method)
    </>,
  ],
  [
    "response_mode",
    <>
      <code>form_post</code> (the only mode)
    </>,
  ],
  ["login_hint", "optional: prefills the email; never signs anyone in"],
  [
    "challenge=pin_code",
    "optional: the user types a 6-digit emailed code instead of following a link (recommended in popups)",
  ],
  [
    "ui_locales",
    <>
      optional, e.g. <code>da-DK en</code>: the first supported language forces the screens&apos;
      language (da de en es fi fr it nb nl pl pt sv)
    </>,
  ],
  [
    "renew_connection",
    <>
      optional: a connection&apos;s <code>sessionId</code>; goes straight to that bank&apos;s
      consent to renew it
    </>,
  ],
];

export default function FlowPage() {
  return (
    <>
      <h1>The flow</h1>
      <p>
        Redirect the user&apos;s browser (a full-page navigation or a popup) to{" "}
        <code>GET /oauth/authorize</code>, the <code>authorization_endpoint</code> of discovery.
      </p>

      <h2>Authorize parameters</h2>
      <DocsTable
        head={["Parameter", "Value"]}
        rows={AUTHORIZE_PARAMETERS.map(([parameter, value]) => ({
          key: parameter,
          cells: [<code key="parameter">{parameter}</code>, value],
        }))}
      />
      <p>
        A wrong <code>client_id</code> or <code>redirect_uri</code> answers 400 (nothing can be
        posted to an unverified address): JSON to a program, and to a browser a page in the
        person&apos;s language that names the technical reason for you. Every other problem is
        relayed to your redirect URI as an error: see <Link href="/docs/errors">errors</Link>. A
        flow is bound to the browser by a cookie valid for one hour; keep the pending login at least
        that long.
      </p>
      <Example name="authorizeUrl" />

      <h2 id="redirect-uris">Redirect URIs</h2>
      <p>
        A client has 1 to {REDIRECT_URI_LIMIT} redirect URIs, registered in the{" "}
        <a href="/dashboard">dashboard</a>. Each is an absolute <code>https://</code> address of at
        most 2048 characters, without a fragment, a user name or password, or spaces. On authorize,
        the <code>redirect_uri</code> must equal one of them character for character: nothing is
        normalized, so the scheme, host, port, path and any query must all be the same.
      </p>
      <p>
        Plain <code>http://</code> is allowed only on loopback, for development on your own machine:{" "}
        <code>localhost</code>, any address in <code>127.0.0.0/8</code> (such as{" "}
        <code>127.0.0.1</code>) and <code>[::1]</code>. Any port may be registered, but the port is
        part of the match: <code>{PORT_MATCH.registered}</code> does not also allow{" "}
        <code>{PORT_MATCH.otherPort}</code>, and <code>127.0.0.1</code> does not also allow{" "}
        <code>localhost</code>. RFC 8252 §7.3 lets a native app choose its loopback port when it
        runs; this service does not, so register each port you use (up to {REDIRECT_URI_LIMIT}) and
        listen on one of them.
      </p>
      <DocsTable
        head={["Redirect URI", "Registered?", "Why"]}
        rows={LOOPBACK_EXAMPLES.map((example) => ({
          key: example.uri,
          cells: [
            <code key="uri">{example.uri}</code>,
            example.allowed ? "Yes" : "No",
            example.why,
          ],
        }))}
        testId="loopback-examples"
      />

      <h2>Screens</h2>
      <ol>
        <li>
          <strong>Sign in</strong> (<code>/login</code>): one mail with a single-use link and a
          6-digit code, valid 15 minutes, 5 attempts; or one tap of a passkey the user registered
          here before, at your service or another partner&apos;s (no mail). Either way the result is
          the same signed-in user; nothing changes for you.
        </li>
        <li>
          <strong>Key setup</strong> (<code>/setup</code>, user-key mode only): the user&apos;s
          P-256 key is made in the browser and protected with a passphrase; only the public half is
          sent. Where the user&apos;s passkey supports it, the passkey holds the key instead of a
          passphrase, and a synced passkey brings it to a new device; otherwise the user imports the
          backup file there.
        </li>
        <li>
          <strong>Bank</strong> (<code>/banks</code>): search and country filter, then the
          bank&apos;s own consent page.
        </li>
        <li>
          <strong>Consent</strong> (<code>/consent</code>): your branding, your purpose text, the
          data shared.
        </li>
      </ol>
      <p>
        Every screen shows your branding and a &quot;Back to the partner&quot; button, which ends in
        an <code>access_denied</code> relay.
      </p>

      <h2>Order</h2>
      <ul>
        <li>
          <strong>Without a recipient key</strong> (user-key mode): sign in → key setup → bank →
          consent; the browser relays the user&apos;s <code>privateKey</code> and{" "}
          <code>publicKey</code>.
        </li>
        <li>
          <strong>
            With a <Link href="/docs/recipient-keys">recipient key</Link>
          </strong>{" "}
          (partner-key mode): sign in → consent → bank; the server relays with empty{" "}
          <code>privateKey</code> and <code>publicKey</code>.
        </li>
        <li>A user with nothing left to do goes straight to consent.</li>
        <li>
          <code>renew_connection=&lt;sessionId&gt;</code> goes straight to that connection&apos;s
          bank.
        </li>
      </ul>
    </>
  );
}
