import Link from "next/link";
import { SDK_INSTALL, SDK_PACKAGE } from "@/lib/docs/api-examples";
import { SHELL_VARIABLES } from "@/lib/docs/examples";
import { CodeBlock } from "./_components/code-block";
import { DocsTable } from "./_components/docs-table";
import { Example } from "./_components/example";

export default function QuickStartPage() {
  return (
    <>
      <h1>Quick start</h1>
      <p>
        Bank Connect lets your users connect their bank accounts to your app. You send the user
        through a hosted flow with a standard OAuth 2.0 authorization request (authorization code +
        PKCE S256, <code>form_post</code> response). The flow ends with a form POST to your redirect
        URI carrying a one-time <code>code</code>; you exchange it for a long-lived API key (
        <code>ebk_…</code>, valid 365 days) and read that user&apos;s accounts and transactions.
        Bank data only ever leaves the service as <Link href="/docs/envelopes">envelopes</Link>{" "}
        sealed to a key the service does not hold.
      </p>
      <p>
        Reading your own bank data with your own tools, such as the command-line client? See{" "}
        <Link href="/docs/own-data">Use your own data</Link>.
      </p>

      <h2>What you need</h2>
      <ul>
        <li>
          A Connect client: a <code>client_id</code> (<code>obc_…</code>), its{" "}
          <code>client_secret</code> (shown once) and at least one registered redirect URI. Create
          it in the <a href="/dashboard">partner dashboard</a>.
        </li>
        <li>
          Optionally a <Link href="/docs/recipient-keys">recipient key</Link>: install one and all
          data of your users is sealed to it, so you decrypt with one private key.
        </li>
        <li>
          The service&apos;s issuer (its public base address). The examples read it from{" "}
          <code>$BASE_URL</code>.
        </li>
      </ul>

      <h2 id="install-the-sdk">Install the SDK</h2>
      <p>
        Each API call below is shown in three tabs: curl, Node and <code>fetch</code>. The curl and{" "}
        <code>fetch</code> tabs need nothing installed. The Node tabs import the published client
        SDK <code>{SDK_PACKAGE}</code> (Node 20+), which calls the data API with your API key and
        opens the envelopes for you. Install it in your project:
      </p>
      <CodeBlock code={SDK_INSTALL} />

      <h2>Shell examples</h2>
      <p>The shell examples read their input from these environment variables:</p>
      <DocsTable
        head={["Variable", "Value"]}
        rows={Object.entries(SHELL_VARIABLES).map(([name, meaning]) => ({
          key: name,
          cells: [<code key="name">${name}</code>, meaning],
        }))}
      />
      <p>For example:</p>
      <CodeBlock
        code={`export BASE_URL=https://bank-connect.example
export CLIENT_ID=obc_…  CLIENT_SECRET=…  REDIRECT_URI=https://app.example/callback`}
      />

      <h2>Five steps</h2>
      <ol>
        <li>
          <strong>Discover.</strong> Read the discovery document and check that <code>issuer</code>{" "}
          equals the address you asked (cache it for up to an hour).
          <Example name="discovery" />
          <p>
            Bank Connect is an OAuth 2.0 authorization server (RFC 8414), not an OpenID provider: it
            publishes <code>/.well-known/oauth-authorization-server</code> and no{" "}
            <code>/.well-known/openid-configuration</code>. A client library that looks for the
            OpenID document by default gets a 404 there. With <code>openid-client</code> (
            <code>npm install openid-client</code>), pass <code>{`{ algorithm: "oauth2" }`}</code>{" "}
            to <code>discovery()</code>:
          </p>
          <Example name="discoverOpenidClient" />
        </li>
        <li>
          <strong>Send the user to authorize.</strong> Create a PKCE verifier and a random{" "}
          <code>state</code>, store both on your server keyed by <code>state</code>, and redirect
          the browser. See <Link href="/docs/flow">the flow</Link> for every parameter.
          <Example name="authorizeUrl" />
        </li>
        <li>
          <strong>Receive the relay.</strong> The browser POSTs{" "}
          <code>code, state, iss, privateKey, publicKey</code> to your redirect URI. Look the
          pending login up by <code>state</code>, compare it in constant time and check{" "}
          <code>iss</code>: <Link href="/docs/relay">the relay</Link>.
        </li>
        <li>
          <strong>Exchange the code</strong> (within 5 minutes, once) for the API key:{" "}
          <Link href="/docs/token">token exchange</Link>.
          <Example name="tokenCurl" />
        </li>
        <li>
          <strong>Read data</strong> with <code>X-Api-Key</code> and open the envelopes:{" "}
          <Link href="/docs/data">data API</Link>, <Link href="/docs/envelopes">envelopes</Link>,{" "}
          <Link href="/docs/sync">sync</Link>.
          <Example name="accounts" />
        </li>
      </ol>

      <h2>Reference</h2>
      <p>
        The machine-readable description of every endpoint is the OpenAPI 3.1 document at{" "}
        <a href="/openapi.json">/openapi.json</a>. The published <code>open-banking-io</code> client
        SDKs speak this service&apos;s wire contract, so they work against it unchanged. Every
        example on these pages is executed against a running server by the service&apos;s own test
        suite.
      </p>
    </>
  );
}
