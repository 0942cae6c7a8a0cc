/**
 * `count` records of 97 bytes: a fresh ephemeral P-256 public point (65 bytes,
 * uncompressed) and the ECDH shared secret with `recipient` (32 bytes, X).
 */
export function agree(recipient: Uint8Array, count: number): Buffer;
