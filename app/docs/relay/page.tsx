import Link from "next/link";
import { Example } from "../_components/example";

export default function RelayPage() {
  return (
    <>
      <h1>The relay</h1>
      <p>
        The flow ends with the user&apos;s browser submitting an HTML form to your{" "}
        <code>redirect_uri</code>: a <code>POST</code> with an{" "}
        <code>application/x-www-form-urlencoded</code> body (<code>response_mode=form_post</code>
        ). Nothing is put in the URL.
      </p>
      <h2>Fields</h2>
      <ul>
        <li>
          Success, in this order: <code>code</code>, <code>state</code>, <code>iss</code>,{" "}
          <code>privateKey</code>, <code>publicKey</code>. <code>privateKey</code> is the
          user&apos;s P-256 key (standard base64 PKCS#8) and <code>publicKey</code> its raw 65-byte
          point (standard base64); both are empty strings when you installed a recipient key.
        </li>
        <li>
          Error: <code>error</code>, <code>error_description</code>, <code>state</code>,{" "}
          <code>iss</code>.
        </li>
      </ul>

      <h2>Your session cookie is not there</h2>
      <p>
        The POST comes from the service&apos;s origin, so it is a <em>cross-site</em> request.
        Browsers do not send <code>SameSite=Lax</code> (the default) or <code>SameSite=Strict</code>{" "}
        cookies on a cross-site POST. Do not rely on your session cookie to find the login that
        started the flow. Instead:
      </p>
      <ol>
        <li>
          When you build the authorize URL, store <code>{"{state, verifier}"}</code> server-side
          (database, cache) keyed by <code>state</code>, with a lifetime of at least one hour.
        </li>
        <li>
          On the POST, look the pending login up by the posted <code>state</code>, compare it in
          constant time, and delete it (a state is used once).
        </li>
        <li>
          Check <code>iss</code> equals the <code>issuer</code> of the discovery document (RFC
          9207): this stops a response from another authorization server being injected.
        </li>
        <li>
          Only then look at <code>error</code>; otherwise take the <code>code</code> and{" "}
          <Link href="/docs/token">exchange it</Link> with the stored verifier.
        </li>
        <li>
          Answer with a redirect (303) to a page of your own: from there on, your own cookies work
          again (a top-level GET navigation carries <code>SameSite=Lax</code> cookies).
        </li>
      </ol>
      <p>
        Your CSRF protection must let this one endpoint accept a cross-site POST: the state check is
        its CSRF protection. If you set a <code>Content-Security-Policy</code> with{" "}
        <code>form-action</code> on your own pages, that does not affect this POST (it is the
        service&apos;s page that submits the form).
      </p>
      <Example name="relay" />

      <h2>Errors in the relay</h2>
      <ul>
        <li>
          <code>access_denied</code>: the user declined or pressed &quot;Back to the partner&quot;.
        </li>
        <li>
          <code>temporarily_unavailable</code> with{" "}
          <code>
            this partner has not installed its decryption key; no authorizations can be started
            until it does
          </code>{" "}
          or <code>this partner is suspended; no authorizations can be started</code>.
        </li>
        <li>
          <code>invalid_request</code>, <code>unsupported_response_type</code>,{" "}
          <code>invalid_scope</code>: a bad authorize request; see{" "}
          <Link href="/docs/errors">errors</Link>.
        </li>
      </ul>
    </>
  );
}
