import type { PsuType } from "../types";
import { findSandboxBankById } from "./banks";
import { SANDBOX_CODE_LIFETIME_MS } from "./index";
import { findSandboxToken, signSandboxToken, type SandboxClaims } from "./tokens";

/**
 * The sandbox bank's consent page (docs/architecture.md#upstream-aggregators): what the user is asked,
 * and where Approve or Deny sends the browser. The redirect URL and state
 * come from the signed authorization id, so the page cannot be turned into
 * an open redirect.
 */

export interface SandboxAuthorizationRequest {
  aspsp: { name: string; country: string };
  psuType: PsuType;
  validUntil: Date;
  redirectUrl: string;
  state: string;
  language: string;
}

function liveClaims(
  authorizationId: string,
  now: Date,
): { claims: SandboxClaims<"authorization">; request: SandboxAuthorizationRequest } | null {
  const claims = findSandboxToken("authorization", authorizationId);
  if (!claims || claims.expiresAt <= now.getTime()) return null;
  const bank = findSandboxBankById(claims.bank);
  if (!bank) return null;
  return {
    claims,
    request: {
      aspsp: { name: bank.name, country: bank.country },
      psuType: claims.psuType,
      validUntil: new Date(claims.validUntil),
      redirectUrl: claims.redirectUrl,
      state: claims.state,
      language: claims.language,
    },
  };
}

/** What the consent page shows, or null for a forged or expired authorization. */
export function describeSandboxAuthorization(
  authorizationId: string,
  now: Date = new Date(),
): SandboxAuthorizationRequest | null {
  return liveClaims(authorizationId, now)?.request ?? null;
}

function back(redirectUrl: string, params: Record<string, string>): string {
  const url = new URL(redirectUrl);
  for (const [name, value] of Object.entries(params)) url.searchParams.set(name, value);
  return url.href;
}

/** Approve: the redirect back with a code, or null when the authorization is not live. */
export function approveSandboxAuthorization(
  authorizationId: string,
  now: Date = new Date(),
): string | null {
  const live = liveClaims(authorizationId, now);
  if (!live) return null;
  const { claims } = live;
  const code = signSandboxToken("code", {
    nonce: claims.nonce,
    bank: claims.bank,
    psuType: claims.psuType,
    validUntil: claims.validUntil,
    issuedAt: now.getTime(),
    expiresAt: now.getTime() + SANDBOX_CODE_LIFETIME_MS,
  });
  return back(claims.redirectUrl, { code, state: claims.state });
}

/** Deny: the redirect back with Enable Banking's `access_denied`, or null. */
export function denySandboxAuthorization(
  authorizationId: string,
  now: Date = new Date(),
): string | null {
  const live = liveClaims(authorizationId, now);
  if (!live) return null;
  return back(live.claims.redirectUrl, {
    error: "access_denied",
    error_description: "The user denied the consent at the bank.",
    state: live.claims.state,
  });
}
