import { randomUUID } from "node:crypto";
import { API_KEY_LIFETIME_SECONDS, generateApiKey, hashApiKey, shownPrefix } from "./api-keys";

/**
 * A new API key before it is stored: the secret the partner receives once,
 * and what the database keeps of it (a keyed hash and the shown prefix).
 * Every grant of the token endpoint mints its key here; the grant decides
 * when the row is written (the authorization-code grant writes it in the
 * same statement that consumes the code).
 */
export interface MintedKey {
  id: string;
  apiKey: string;
  keyHash: string;
  prefix: string;
  partnerId: string | null;
  expiresInSeconds: number;
}

export function mintApiKey(partnerId: string | null): MintedKey {
  const apiKey = generateApiKey();
  return {
    id: randomUUID(),
    apiKey,
    keyHash: hashApiKey(apiKey),
    prefix: shownPrefix(apiKey),
    partnerId,
    expiresInSeconds: API_KEY_LIFETIME_SECONDS,
  };
}
