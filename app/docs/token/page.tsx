import { CodeBlock } from "../_components/code-block";
import { Example } from "../_components/example";

export default function TokenPage() {
  return (
    <>
      <h1>Token exchange</h1>
      <p>
        <code>POST /oauth/token</code> with a form body: <code>grant_type=authorization_code</code>,
        the <code>code</code>, the PKCE <code>code_verifier</code> and the same{" "}
        <code>redirect_uri</code>. Authenticate the client with HTTP Basic (
        <code>client_secret_basic</code>: each half percent-encoded with{" "}
        <code>encodeURIComponent</code>, then joined with <code>:</code> and base64&apos;d) or with{" "}
        <code>client_id</code> and <code>client_secret</code> in the body (
        <code>client_secret_post</code>), never both.
      </p>
      <p>
        A code is valid 300 seconds and only once; any failure with it (<code>invalid_grant</code>)
        is final: start a new authorization. Exchange each code exactly once: presenting a used code
        again also revokes the key it was exchanged for.
      </p>
      <Example name="tokenCurl" />
      <h2>Response</h2>
      <CodeBlock
        code={`{
  "access_token": "ebk_…",
  "token_type": "Bearer",
  "expires_in": 31536000,
  "scope": "accounts.read",
  "apiKey": "ebk_…",
  "apiBaseUrl": "https://bank-connect.example",
  "user": "wl:<partner>:connect:<email>"
}`}
      />
      <p>
        Store the key encrypted at rest; it reads that user&apos;s data for 365 days. Send it as{" "}
        <code>X-Api-Key</code> (or <code>Authorization: Bearer</code>).
      </p>

      <h2>Userinfo</h2>
      <p>
        <code>GET /oauth/userinfo</code> with <code>Authorization: Bearer</code> answers who the key
        reads for: <code>sub</code>, <code>email</code>, <code>partner_id</code>,{" "}
        <code>client_id</code>, <code>scope</code>, <code>expires_at</code>. A revoked or expired
        key answers 401.
      </p>
      <Example name="userinfo" />

      <h2>Revocation</h2>
      <p>
        <code>POST /oauth/revoke</code> (RFC 7009) with the same client authentication and{" "}
        <code>token=&lt;key&gt;</code>. It answers 200 with an empty body, also for an unknown key;
        only keys issued to your client are affected. A revoked key is refused at once.
      </p>
      <Example name="revoke" />

      <h2>When the user ends access</h2>
      <p>
        Each user sees the applications that can read their bank data on this service&apos;s{" "}
        <a href="/account">My access</a> page (<code>/account</code>), and can end that access,
        remove a bank connection or delete everything there at any time. They are told by mail when
        a partner is granted access, with a link to that page. Ending access revokes every key of
        your clients for that user at once: your next call answers 401 <code>invalid_token</code>,
        exactly as for a key you revoked yourself. A removed bank&apos;s accounts disappear from{" "}
        <code>GET /api/accounts</code>. Treat a 401 as the end of the grant; a user who wants to
        reconnect goes through the flow again.
      </p>
    </>
  );
}
