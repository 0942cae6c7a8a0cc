import type { BrandingRecord } from "@/lib/partners/branding-record";
import { send, type Answer, type Endpoint } from "./ui/request";

/**
 * The branding section's calls: the whole record replaced with
 * PUT /api/partner/branding, a logo uploaded to /api/partner/logo. Each
 * answers the request's outcome (never throws), and a success carries the
 * record as saved.
 */

export type TextField =
  "displayName" | "accentColor" | "supportUrl" | "termsUrl" | "privacyUrl" | "purpose";
export type Draft = Record<TextField | "defaultLanguage" | "logoAddress", string>;
export type Saved = { branding: BrandingRecord };
export type BrandingAnswer = Answer<Partial<Saved>>;

/** The form's values for a saved record (the logo address starts empty). */
export function toDraft(branding: BrandingRecord): Draft {
  return {
    displayName: branding.displayName ?? "",
    accentColor: branding.accentColor ?? "",
    supportUrl: branding.supportUrl ?? "",
    termsUrl: branding.termsUrl ?? "",
    privacyUrl: branding.privacyUrl ?? "",
    purpose: branding.purpose ?? "",
    defaultLanguage: branding.defaultLanguage ?? "",
    logoAddress: "",
  };
}

/** The record an answer saved, or null when it was refused. */
export function savedBranding(answer: BrandingAnswer): BrandingRecord | null {
  return answer.ok && answer.body.branding ? answer.body.branding : null;
}

/** The input that shows a refused field's message (a refused logo address is the API's logoUrl). */
export function inputFor(field: string): string {
  return field === "logoUrl" ? "logoAddress" : field;
}

const BRANDING = "/api/partner/branding";

export function brandingApi(endpoint: Endpoint) {
  return {
    /** Saves the draft; a logo address typed in replaces the current logo. */
    save: (draft: Draft, logo: string | null) => {
      const { logoAddress, ...fields } = draft;
      return send<Partial<Saved>>(endpoint, BRANDING, {
        method: "PUT",
        json: { ...fields, logoUrl: logoAddress.trim() || logo },
      });
    },
    upload: (file: File) =>
      send<Partial<Saved>>(endpoint, "/api/partner/logo", {
        method: "POST",
        body: file,
        contentType: file.type,
      }),
    /** Saves the record as it was saved, without its logo. */
    removeLogo: (saved: BrandingRecord) =>
      send<Partial<Saved>>(endpoint, BRANDING, {
        method: "PUT",
        json: { ...saved, logoUrl: null },
      }),
  };
}
