import Link from "next/link";
import { Example } from "../_components/example";

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
      <div className="table-scroll" tabIndex={0}>
        <table>
          <thead>
            <tr>
              <th>Offset</th>
              <th>Bytes</th>
              <th>Content</th>
            </tr>
          </thead>
          <tbody>
            <tr>
              <td>0</td>
              <td>1</td>
              <td>
                version, <code>0x01</code> (reject anything else)
              </td>
            </tr>
            <tr>
              <td>1–65</td>
              <td>65</td>
              <td>ephemeral public key, uncompressed point</td>
            </tr>
            <tr>
              <td>66–77</td>
              <td>12</td>
              <td>AES-GCM nonce</td>
            </tr>
            <tr>
              <td>78–93</td>
              <td>16</td>
              <td>
                GCM tag: <strong>before</strong> the ciphertext
              </td>
            </tr>
            <tr>
              <td>94–</td>
              <td>N</td>
              <td>ciphertext, as long as the plaintext</td>
            </tr>
          </tbody>
        </table>
      </div>
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
      <div className="table-scroll" tabIndex={0}>
        <table>
          <thead>
            <tr>
              <th>Field</th>
              <th>Opens to</th>
            </tr>
          </thead>
          <tbody>
            <tr>
              <td>
                account <code>enc</code>
              </td>
              <td>
                <code>ownerName, iban, bban, accountName, product</code>
              </td>
            </tr>
            <tr>
              <td>
                account <code>displayNameEnc</code>
              </td>
              <td>
                <code>displayName</code>
              </td>
            </tr>
            <tr>
              <td>
                account <code>uidEnc</code>
              </td>
              <td>
                <code>uid</code> (what <Link href="/docs/sync">sync</Link> needs)
              </td>
            </tr>
            <tr>
              <td>
                balance <code>enc</code>
              </td>
              <td>
                <code>amount, name</code>
              </td>
            </tr>
            <tr>
              <td>
                transaction <code>enc</code>
              </td>
              <td>
                <code>
                  amount, creditorName, creditorIban, creditorBban, creditorAgentBic, debtorName,
                  debtorIban, debtorBban, debtorAgentBic, remittanceInformation, note,
                  referenceNumber, exchangeRate, merchantCategoryCode, balanceAfter,
                  balanceAfterCurrency, rawJson
                </code>
              </td>
            </tr>
          </tbody>
        </table>
      </div>
    </>
  );
}
