import Link from "next/link";
import { Fragment, type ReactNode } from "react";
import { DocsTable } from "../_components/docs-table";

const AUTHORIZE_ERRORS: [error: string, when: ReactNode][] = [
  [
    "unsupported_response_type",
    <>
      <code>response_type</code> other than <code>code</code>
    </>,
  ],
  [
    "invalid_request",
    <>
      <code>response_mode</code> other than <code>form_post</code>, missing{" "}
      <code>code_challenge</code>, method other than <code>S256</code>
    </>,
  ],
  [
    "invalid_scope",
    <>
      a scope other than <code>accounts.read</code>
    </>,
  ],
  ["access_denied", "the user declined or cancelled"],
  ["temporarily_unavailable", "your partner account is suspended or has no required recipient key"],
];

const TOKEN_ERRORS: [status: string, error: string, when: ReactNode][] = [
  [
    "400",
    "invalid_request",
    "a parameter is missing; both authentication methods used; wrong content type",
  ],
  [
    "400",
    "unsupported_grant_type",
    <>
      <code>grant_type</code> is not <code>authorization_code</code>
    </>,
  ],
  [
    "401",
    "invalid_client",
    <>
      unknown client or wrong secret (with <code>WWW-Authenticate: Basic</code>)
    </>,
  ],
  [
    "400",
    "invalid_grant",
    "code unknown, expired, used, bound to another client or redirect URI, or verifier mismatch: final, start over",
  ],
  [
    "400",
    "unauthorized_client",
    "your partner account is suspended: no key is issued, the code stays usable for its 300 seconds in case the account is resumed",
  ],
];

const RATE_LIMITS: [paths: string[], limit: string][] = [
  [["/oauth/authorize", "/oauth/cancel"], "50 each"],
  [["/api/*"], "300"],
  [["/oauth/token", "/oauth/revoke", "/oauth/userinfo"], "none"],
];

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
      <DocsTable
        head={["error", "when"]}
        rows={AUTHORIZE_ERRORS.map(([error, when]) => ({
          key: error,
          cells: [<code key="error">{error}</code>, when],
        }))}
      />

      <h2>Token and revoke</h2>
      <p>
        A JSON body <code>{"{error, error_description}"}</code>:
      </p>
      <DocsTable
        head={["status", "error", "when"]}
        rows={TOKEN_ERRORS.map(([status, error, when]) => ({
          key: error,
          cells: [status, <code key="error">{error}</code>, when],
        }))}
      />

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
      <DocsTable
        head={["path", "limit"]}
        rows={RATE_LIMITS.map(([paths, limit]) => ({
          key: paths.join(" "),
          cells: [
            paths.map((path, index) => (
              <Fragment key={path}>
                {index > 0 ? ", " : null}
                <code>{path}</code>
              </Fragment>
            )),
            limit,
          ],
        }))}
      />
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
