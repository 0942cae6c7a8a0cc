/**
 * The PRF extension's input (docs/key-model.md): the same 32 bytes for every
 * passkey, SHA-256("bank-connect/passkey-prf/v1"). The authenticator keys its
 * answer with the credential's own secret, so each passkey still gives its own
 * output. Sent in the creation and request options of every ceremony, and used
 * by the browser when it asks a passkey for the secret that opens the key.
 * Plain data: importable by the server and by the browser alike.
 */
export const PASSKEY_PRF_LABEL = "bank-connect/passkey-prf/v1";

export const PASSKEY_PRF_INPUT: Readonly<Uint8Array<ArrayBuffer>> = new Uint8Array([
  159, 32, 207, 10, 236, 202, 237, 227, 217, 11, 184, 60, 174, 172, 150, 255, 37, 110, 162, 147, 25,
  18, 55, 47, 36, 34, 11, 249, 51, 38, 247, 128,
]);
