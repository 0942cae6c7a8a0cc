import Link from "next/link";
import { Example } from "../_components/example";

export default function RecipientKeysPage() {
  return (
    <>
      <h1>Recipient keys</h1>
      <p>
        A recipient key (&quot;decryption key&quot;) is one P-256 key pair of yours. The service
        keeps only its public half. Once it is installed, the data of every user who connects
        through your Connect clients is sealed to it, and the relay carries empty{" "}
        <code>privateKey</code> and <code>publicKey</code>: you open every envelope with your one
        private key, and the flow skips the user&apos;s key setup (sign in → consent → bank). A user
        who connected before you installed the key keeps their own key (the relay carried it).
      </p>
      <p>
        When the service runs with <code>recipient_key_required</code> (see discovery), no
        authorization can start until your key is installed: the relay answers{" "}
        <code>temporarily_unavailable</code>.
      </p>

      <h2>Install it in the dashboard</h2>
      <p>
        In the <a href="/dashboard">partner dashboard</a>, an owner installs the key in one of two
        ways:
      </p>
      <ul>
        <li>
          <strong>Generate in the browser</strong>: the key file is downloaded, the private half is
          never sent. Keep the file safe: the service cannot recover it.
        </li>
        <li>
          <strong>Bring your own</strong> (made elsewhere, e.g. in an HSM or a CLI): paste the
          public half and answer the possession challenge.
        </li>
      </ul>

      <h2>Format</h2>
      <ul>
        <li>
          Private half: standard base64 DER PKCS#8; public half: the raw 65-byte point, standard
          base64 (as in <Link href="/docs/envelopes">envelopes</Link>).
        </li>
        <li>
          Fingerprint (shown in the dashboard): SHA-256 of the 65 raw point bytes, lowercase hex,
          first 16 characters.
        </li>
        <li>
          Key file:{" "}
          <code>
            {
              '{"service", "kind": "partner-recipient-key", "fingerprint", "encryptionKey": {"scheme", "curve": "P-256", "privateKeyFormat": "pkcs8-base64", "privateKey", "publicKey"}, "createdAt"}'
            }
          </code>
        </li>
      </ul>

      <h2>The possession challenge</h2>
      <ol>
        <li>
          <code>POST /api/partners/mine/recipient-key/challenge</code> with{" "}
          <code>{'{"publicKey": "<b64 raw point>"}'}</code> answers{" "}
          <code>{"{fingerprint, envelope, issuedAt, expiresAt}"}</code>: an envelope sealed to that
          key, holding <code>{'{"nonce": "…"}'}</code>.
        </li>
        <li>Open the envelope with the private half (the example below) and take the nonce.</li>
        <li>
          <code>PUT /api/partners/mine/recipient-key</code> with{" "}
          <code>{'{"publicKey": "…", "challengeAnswer": "<nonce>"}'}</code> installs it and answers{" "}
          <code>{"{fingerprint, installedAt}"}</code>.
        </li>
      </ol>
      <p>
        Both endpoints need the owner&apos;s signed-in dashboard session and its CSRF token in{" "}
        <code>X-CSRF-Token</code> from the service&apos;s own origin; API keys get 403. The
        dashboard does all of this for you.
      </p>
      <Example name="openEnvelope" />
    </>
  );
}
