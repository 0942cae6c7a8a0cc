/**
 * The WebAuthn user handle of a person's passkeys: their user id's 16 bytes.
 * Stable, so every passkey of one person on one authenticator is the same
 * account to it, and it names nothing outside this service.
 */
export function userHandleOf(userId: string): Uint8Array<ArrayBuffer> {
  return new Uint8Array(Buffer.from(userId.replace(/-/g, ""), "hex"));
}

export const userHandleBase64Url = (userId: string): string =>
  Buffer.from(userHandleOf(userId)).toString("base64url");
