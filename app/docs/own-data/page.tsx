import Link from "next/link";
import { CodeBlock } from "../_components/code-block";
import { DocsTable } from "../_components/docs-table";

const LOGIN = `openbanking login --api $BASE_URL
# Your browser opens: sign in, allow the command-line client; the key is saved.
openbanking key import bank-connect-key-UNENCRYPTED.json
openbanking accounts
openbanking transactions <account-id> --from 2026-01-01
openbanking sync --all`;

const CONNECT = `openbanking banks --country DK
openbanking connect "Sandbox Nordbank DK" --country DK --psu-type personal
# Your browser opens the bank's consent page; the program waits for the new connection.`;

const START = `GET /auth/cli/start?port=53412&code_challenge=E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM&state=…`;

const EXCHANGE = `POST /auth/cli/token
Content-Type: application/json

{"code":"…","codeVerifier":"…"}

HTTP/1.1 200 OK
Content-Type: application/json

{"apiKey":"ebk_…","apiBaseUrl":"https://bank-connect.example","user":"you@example.com","prefix":"ebk_Ab12Cd34"}`;

const BANKS = `GET /api/aspsps?country=DK
X-Api-Key: ebk_…

[{"name":"Sandbox Nordbank DK","country":"DK","logo":null,"bic":"SBNODKKK","beta":false,"psuTypes":["personal","business"]}]`;

const AUTHORIZE = `POST /api/authorizations
X-Api-Key: ebk_…
Content-Type: application/json

{"country":"DK","aspspName":"Sandbox Nordbank DK","psuType":"personal"}

HTTP/1.1 200 OK

{"url":"https://…"}`;

const ABILITIES: [operation: string, partner: string, personal: string][] = [
  ["GET /api/accounts, GET /api/accounts/{id}/transactions", "yes", "yes"],
  ["GET /api/connections", "yes", "yes"],
  ["POST /api/accounts/{id}/sync, POST /api/sync", "yes", "yes"],
  ["GET /api/aspsps (the banks that can be connected)", "403", "yes"],
  ["POST /api/authorizations (start connecting a bank)", "403", "yes"],
  ["every other path under /api", "403", "403"],
];

const REFUSALS: [status: string, body: string, when: string][] = [
  [
    "400",
    "invalid_grant",
    "the code is unknown, used, expired (after 5 minutes) or its verifier is wrong",
  ],
  ["400", "invalid_request", "the body is not JSON {code, codeVerifier}"],
  ["403", "insufficient_scope", "a partner's key on /api/aspsps or /api/authorizations"],
  ["404", "not_found", "no bank of that name in that country (POST /api/authorizations)"],
  ["409", "key_required", "you have not set up your key yet (POST /api/authorizations)"],
];

export default function OwnDataPage() {
  return (
    <>
      <h1>Use your own data</h1>
      <p>
        Your bank data is yours. Besides the apps you allow in their flow, you can read it with your
        own tools: the published command-line client, or a script or integration built on one of the
        client SDKs. Both use a <strong>personal key</strong>: an API key (<code>ebk_…</code>) for
        your own data, not an app&apos;s. It reads only your own bank connections, and what it reads
        is sealed to your own key: nobody but you can open it.
      </p>

      <h2 id="the-command-line-client">The command-line client</h2>
      <p>
        Point the client at this service and sign in. Your browser opens; you sign in as you do
        anywhere here (set up your key first if you have none), and the page asks{" "}
        <em>&quot;Allow the command-line client on this computer to read your banks?&quot;</em> When
        you allow it, the client gets a personal key of its own.
      </p>
      <CodeBlock code={LOGIN} />
      <p>
        The sign-in never gives the client your private key. Give it yourself: on{" "}
        <a href="/account">My access</a>, under your key,{" "}
        <em>For developers: export the key unencrypted</em> downloads the credentials file that{" "}
        <code>openbanking key import</code> reads. Anyone with that file can read your data: keep it
        on your computer and out of shared folders.
      </p>
      <p>Connecting a bank works from the terminal too:</p>
      <CodeBlock code={CONNECT} />

      <h2 id="how-the-sign-in-works">How the sign-in works</h2>
      <p>
        The client follows RFC 8252 (OAuth for native apps): it listens on <code>127.0.0.1</code> on
        a port of its own and opens
      </p>
      <CodeBlock code={START} />
      <p>
        The port must be a plain number from 1 to 65535 and the challenge the S256 hash of a PKCE
        verifier the client keeps to itself; anything else is refused on the page and nothing is
        sent anywhere. After you allow it, your browser goes to{" "}
        <code>http://127.0.0.1:&lt;port&gt;/callback?code=…</code>, never to another address, and
        the client exchanges the one-time code with its verifier, once, within 5 minutes:
      </p>
      <CodeBlock code={EXCHANGE} />
      <p>
        <code>prefix</code> is what My access shows of the key. A code used twice was seen by
        someone else: presented again with its verifier, it ends the key it gave.
      </p>

      <h2 id="personal-keys">Personal keys</h2>
      <p>
        A personal key belongs to no app: <code>GET /oauth/userinfo</code> answers{" "}
        <code>&quot;partner_id&quot;: null</code> for it. The command-line client gets one at each
        sign-in; for your own integrations you can make one by hand on My access, with a name, and
        use it with an SDK: put its value in the exported credentials file&apos;s{" "}
        <code>apiKey</code> and load the file with the SDK&apos;s <code>fromCredentials</code>. Like
        every key it is valid for 365 days, and its value is shown once.
      </p>
      <DocsTable
        head={["Operation", "An app's key", "Your personal key"]}
        rows={ABILITIES.map(([operation, partner, personal]) => ({
          key: operation,
          cells: [<code key="operation">{operation}</code>, partner, personal],
        }))}
      />
      <p>
        The data operations work as for apps (<Link href="/docs/data">data API</Link>,{" "}
        <Link href="/docs/sync">sync</Link>, <Link href="/docs/envelopes">envelopes</Link>). The two
        more a personal key may use:
      </p>
      <CodeBlock code={BANKS} />
      <CodeBlock code={AUTHORIZE} />
      <p>
        Open the <code>url</code> in a browser and approve at your bank; the bank sends the browser
        back to this service, which stores the connection for you. It appears in{" "}
        <code>GET /api/connections</code> within seconds (the client polls it every 2 seconds).
        Without <code>psuType</code> the bank&apos;s personal access is asked for.
      </p>

      <h2 id="refusals">Refusals</h2>
      <DocsTable
        head={["Status", "error or reason", "When"]}
        rows={REFUSALS.map(([status, body, when]) => ({
          key: `${status} ${body}`,
          cells: [status, <code key="body">{body}</code>, when],
        }))}
      />

      <h2 id="revoking-a-key">Revoking a key</h2>
      <p>
        My access lists your personal keys under <em>Your own keys</em>: the command-line
        client&apos;s and the ones you made, each with when it was made, when it was last used and
        when it expires. <em>Revoke</em> ends a key at once: its next request answers 401, and the
        command-line client asks you to sign in again. Starting over with a new key, or deleting
        everything, revokes every key that read your old data.
      </p>
    </>
  );
}
