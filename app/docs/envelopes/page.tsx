import Link from "next/link";
import type { ReactNode } from "react";
import { DocsTable } from "../_components/docs-table";
import { Example } from "../_components/example";

const LAYOUT: [offset: string, bytes: string, content: ReactNode][] = [
  [
    "0",
    "1",
    <>
      version, <code>0x01</code> (reject anything else)
    </>,
  ],
  ["1–65", "65", "ephemeral public key, uncompressed point"],
  ["66–77", "12", "AES-GCM nonce"],
  [
    "78–93",
    "16",
    <>
      GCM tag: <strong>before</strong> the ciphertext
    </>,
  ],
  ["94–", "N", "ciphertext, as long as the plaintext"],
];

const PAYLOADS: { key: string; field: ReactNode; opensTo: ReactNode }[] = [
  {
    key: "account enc",
    field: (
      <>
        account <code>enc</code>
      </>
    ),
    opensTo: <code>ownerName, iban, bban, accountName, product</code>,
  },
  {
    key: "account displayNameEnc",
    field: (
      <>
        account <code>displayNameEnc</code>
      </>
    ),
    opensTo: <code>displayName</code>,
  },
  {
    key: "account uidEnc",
    field: (
      <>
        account <code>uidEnc</code>
      </>
    ),
    opensTo: (
      <>
        <code>uid</code> (what <Link href="/docs/sync">sync</Link> needs)
      </>
    ),
  },
  {
    key: "balance enc",
    field: (
      <>
        balance <code>enc</code>
      </>
    ),
    opensTo: <code>amount, name</code>,
  },
  {
    key: "transaction enc",
    field: (
      <>
        transaction <code>enc</code>
      </>
    ),
    opensTo: (
      <code>
        amount, creditorName, creditorIban, creditorBban, creditorAgentBic, debtorName, debtorIban,
        debtorBban, debtorAgentBic, remittanceInformation, note, referenceNumber, exchangeRate,
        merchantCategoryCode, balanceAfter, balanceAfterCurrency, rawJson
      </code>
    ),
  },
];

export default function EnvelopesPage() {
  return (
    <>
      <h1>Envelopes and decryption</h1>
      <p>
        Each sensitive value is sealed on its own, to one public key: the user&apos;s (relayed as{" "}
        <code>publicKey</code>, with <code>privateKey</code> for you to keep) or, for users who
        connected after you installed one, your{" "}
        <Link href="/docs/recipient-keys">recipient key</Link>. The scheme is{" "}
        <code>ecdh-p256-hkdf-aes-256-gcm</code>.
      </p>
      <h2>Whose key, in plain words</h2>
      <ul>
        <li>
          In user-key mode the user&apos;s browser makes the key. The service stores the bank data
          encrypted to it and cannot read it. When the user approves, the browser hands the key to
          you in the <Link href="/docs/relay">relay</Link>: keep <code>privateKey</code> as safely
          as the API key, since together they read the user&apos;s data.
        </li>
        <li>
          The same user relays the same key every time, from any browser they restored it in with
          their encrypted backup file and passphrase.
        </li>
        <li>
          A user who lost both their backup and their passphrase can start over with a new key.
          Everything sealed to the old key is then deleted and the API keys that read it are revoked
          (they answer <code>401</code>): your copy of the old key opens nothing stored afterwards.
          When the user connects again, the relay brings the new key and the token exchange a new
          API key.
        </li>
        <li>
          With your own <Link href="/docs/recipient-keys">recipient key</Link> installed, new users
          are sealed to your key instead, the relay&apos;s key fields are empty, and a user starting
          over does not touch that data.
        </li>
      </ul>
      <h2>Keys</h2>
      <ul>
        <li>Curve NIST P-256 (prime256v1, secp256r1), used for ECDH.</li>
        <li>
          Private key: DER PKCS#8, standard base64 with padding (starts{" "}
          <code>MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQg</code>).
        </li>
        <li>
          Public key: the raw uncompressed point <code>0x04‖X‖Y</code>, 65 bytes, standard base64
          (88 characters, starts <code>B</code>). Not SPKI, not compressed.
        </li>
      </ul>
      <h2>Layout</h2>
      <p>
        The wire form is standard base64 (with <code>+</code>, <code>/</code>, <code>=</code>) of:
      </p>
      <DocsTable
        head={["Offset", "Bytes", "Content"]}
        rows={LAYOUT.map(([offset, bytes, content]) => ({
          key: offset,
          cells: [offset, bytes, content],
        }))}
      />
      <h2>Opening</h2>
      <ol>
        <li>Decode the base64; reject fewer than 94 bytes or a first byte other than 1.</li>
        <li>
          <code>shared = ECDH(your private key, ephemeral public key)</code>: the 32-byte
          x-coordinate.
        </li>
        <li>
          <code>
            key = HKDF-SHA256(shared, salt = 32 zero bytes, info = &quot;bank.core.ci/zk/v1&quot;,
            32 bytes)
          </code>
          .
        </li>
        <li>
          AES-256-GCM decrypt the ciphertext with the nonce, the tag and no additional data. With
          Web Crypto, pass <code>ciphertext‖tag</code> (move the tag to the end).
        </li>
        <li>
          <code>JSON.parse</code> the UTF-8 plaintext: a camelCase object; money and decimals are
          strings, any field may be <code>null</code>.
        </li>
      </ol>
      <p>
        A null or absent envelope field means no value. An envelope that does not open means the
        wrong key: never ignore it silently.
      </p>
      <Example name="openEnvelope" />
      <h2>Payloads</h2>
      <DocsTable
        head={["Field", "Opens to"]}
        rows={PAYLOADS.map(({ key, field, opensTo }) => ({ key, cells: [field, opensTo] }))}
      />
    </>
  );
}
