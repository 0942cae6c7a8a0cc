import Link from "next/link";

export default function KeyRotationPage() {
  return (
    <>
      <h1>Replacing the decryption key</h1>
      <p>
        Your decryption key (the <Link href="/docs/recipient-keys">recipient key</Link>) is one
        P-256 key pair. The service keeps only its public half. The dashboard shows the installed
        key&apos;s fingerprint (the first 16 hexadecimal characters of the SHA-256 of the 65-byte
        public point) and when it was installed.
      </p>

      <h2>What a replacement changes</h2>
      <ul>
        <li>
          <strong>Users who connect after the replacement</strong> are sealed to the new key: your
          server must be able to open envelopes with the new private key from the moment it is
          installed.
        </li>
        <li>
          <strong>Users who connected before</strong> keep the sealing they were created with until
          they connect again. You still need the old private key to read them.
        </li>
        <li>Nothing is re-encrypted: the service holds neither private key.</li>
      </ul>

      <h2>Steps</h2>
      <ol>
        <li>
          <strong>Deploy the new private key next to the old one</strong>, and open each envelope
          with the key it names (or try each). Do this before installing the new key.
        </li>
        <li>
          <strong>Install the new key</strong> in the <a href="/dashboard">dashboard</a>: generate
          it in the browser (the key file is downloaded first) or paste a public key made elsewhere
          and answer the possession challenge. The dashboard asks you to confirm and to type the
          partner&apos;s name. The install names the key it replaces; if another owner installed a
          different key meanwhile, it is refused with <code>409 key_changed</code>.
        </li>
        <li>
          <strong>Keep the old private key</strong> until every user who connected before has
          connected again, or their data is no longer needed. Removing it earlier makes their data
          unreadable for good.
        </li>
        <li>
          <strong>Watch the security log</strong>: each install is recorded with the fingerprint it
          replaces.
        </li>
      </ol>

      <h2>If a private key is lost</h2>
      <p>
        The service cannot recover it. Install a new key so new users are readable again; users
        sealed to the lost key must connect again before you can read their data.
      </p>
    </>
  );
}
