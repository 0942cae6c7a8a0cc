import { z } from "zod";

/**
 * The OAuth endpoints' JSON bodies (/docs/token): the
 * handlers' answers are typed by these, and /openapi.json is generated from
 * them.
 */

export const TokenResponse = z
  .object({
    access_token: z.string().describe("The ebk_ API key"),
    token_type: z.literal("Bearer"),
    expires_in: z.number().int(),
    scope: z.string(),
    apiKey: z.string().describe("First-generation alias of access_token"),
    apiBaseUrl: z.string(),
    user: z.string().describe("The subject the key reads for"),
  })
  .meta({ id: "TokenResponse" });

export const Userinfo = z
  .object({
    sub: z.string(),
    email: z.string(),
    partner_id: z.string().nullable(),
    client_id: z.string().nullable(),
    scope: z.string(),
    expires_at: z.string().nullable(),
  })
  .meta({ id: "Userinfo" });
