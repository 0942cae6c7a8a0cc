import Link from "next/link";

export default function ErrorsPage() {
  return (
    <>
      <h1>Errors and limits</h1>

      <h2>Authorize</h2>
      <p>
        An unknown <code>client_id</code> or a <code>redirect_uri</code> not registered for it
        answers 400 with <code>{"{error, error_description}"}</code> JSON; a browser that accepts{" "}
        <code>text/html</code> gets a page in the person&apos;s language instead, with the same
        status and the same reason for you. Everything else is relayed to your redirect URI with{" "}
        <code>error</code>, <code>error_description</code>, <code>state</code> and <code>iss</code>{" "}
        (see <Link href="/docs/relay">the relay</Link>):
      </p>
      <div className="table-scroll" tabIndex={0}>
        <table>
          <thead>
            <tr>
              <th>error</th>
              <th>when</th>
            </tr>
          </thead>
          <tbody>
            <tr>
              <td>
                <code>unsupported_response_type</code>
              </td>
              <td>
                <code>response_type</code> other than <code>code</code>
              </td>
            </tr>
            <tr>
              <td>
                <code>invalid_request</code>
              </td>
              <td>
                <code>response_mode</code> other than <code>form_post</code>, missing{" "}
                <code>code_challenge</code>, method other than <code>S256</code>
              </td>
            </tr>
            <tr>
              <td>
                <code>invalid_scope</code>
              </td>
              <td>
                a scope other than <code>accounts.read</code>
              </td>
            </tr>
            <tr>
              <td>
                <code>access_denied</code>
              </td>
              <td>the user declined or cancelled</td>
            </tr>
            <tr>
              <td>
                <code>temporarily_unavailable</code>
              </td>
              <td>your partner account is suspended or has no required recipient key</td>
            </tr>
          </tbody>
        </table>
      </div>

      <h2>Token and revoke</h2>
      <p>
        A JSON body <code>{"{error, error_description}"}</code>:
      </p>
      <div className="table-scroll" tabIndex={0}>
        <table>
          <thead>
            <tr>
              <th>status</th>
              <th>error</th>
              <th>when</th>
            </tr>
          </thead>
          <tbody>
            <tr>
              <td>400</td>
              <td>
                <code>invalid_request</code>
              </td>
              <td>a parameter is missing; both authentication methods used; wrong content type</td>
            </tr>
            <tr>
              <td>400</td>
              <td>
                <code>unsupported_grant_type</code>
              </td>
              <td>
                <code>grant_type</code> is not <code>authorization_code</code>
              </td>
            </tr>
            <tr>
              <td>401</td>
              <td>
                <code>invalid_client</code>
              </td>
              <td>
                unknown client or wrong secret (with <code>WWW-Authenticate: Basic</code>)
              </td>
            </tr>
            <tr>
              <td>400</td>
              <td>
                <code>invalid_grant</code>
              </td>
              <td>
                code unknown, expired, used, bound to another client or redirect URI, or verifier
                mismatch: final, start over
              </td>
            </tr>
            <tr>
              <td>400</td>
              <td>
                <code>unauthorized_client</code>
              </td>
              <td>
                your partner account is suspended: no key is issued, the code stays usable for its
                300 seconds in case the account is resumed
              </td>
            </tr>
          </tbody>
        </table>
      </div>

      <h2>Data API</h2>
      <ul>
        <li>
          <strong>401</strong>: missing, revoked or expired key. Send the user through the flow
          again.
        </li>
        <li>
          <strong>403</strong> <code>insufficient_scope</code> (with{" "}
          <code>WWW-Authenticate: Bearer error=&quot;insufficient_scope&quot;</code>): a path
          outside the data operations.
        </li>
        <li>
          <strong>403</strong> <code>access_denied</code> with <code>reason</code>{" "}
          <code>partner_suspended</code> (on the data API and userinfo): your partner account is
          suspended. Keep the key: it works again once the account is resumed. Revoking still works
          meanwhile.
        </li>
        <li>
          <strong>404</strong>: an account that is not this key&apos;s user&apos;s.
        </li>
        <li>
          <strong>400</strong>: a bad query parameter (named in the body).
        </li>
        <li>
          <strong>409 / 429 / 502 / 503</strong> on sync, with a <code>reason</code>: see{" "}
          <Link href="/docs/sync">sync</Link>.
        </li>
      </ul>

      <h2>Rate limits</h2>
      <p>Per client address and minute:</p>
      <div className="table-scroll" tabIndex={0}>
        <table>
          <thead>
            <tr>
              <th>path</th>
              <th>limit</th>
            </tr>
          </thead>
          <tbody>
            <tr>
              <td>
                <code>/oauth/authorize</code>, <code>/oauth/cancel</code>
              </td>
              <td>50 each</td>
            </tr>
            <tr>
              <td>
                <code>/api/*</code>
              </td>
              <td>300</td>
            </tr>
            <tr>
              <td>
                <code>/oauth/token</code>, <code>/oauth/revoke</code>, <code>/oauth/userinfo</code>
              </td>
              <td>none</td>
            </tr>
          </tbody>
        </table>
      </div>
      <p>
        Over the limit: 429 with <code>Retry-After</code> (seconds) and no body. Wait that long. A
        429 with a <code>reason</code> body is the bank throttling a sync instead.
      </p>

      <h2>Lifetimes</h2>
      <ul>
        <li>Authorization code: 300 seconds, single use.</li>
        <li>API key: 365 days.</li>
        <li>Flow (browser cookie): 1 hour.</li>
        <li>Sign-in code: 15 minutes, 5 attempts.</li>
        <li>Previous client secret after a rotation: 24 hours.</li>
        <li>Discovery document: cache up to 1 hour.</li>
      </ul>
    </>
  );
}
