"use client";

import { useTranslations } from "next-intl";
import type { BrandingRecord } from "@/lib/partners/branding-record";
import {
  AccentColorField,
  BrandingTextField,
  DefaultLanguageField,
  LogoAddressField,
  PurposeField,
} from "./branding-fields";
import { BrandingPreview } from "./branding-preview";
import { LogoField } from "./logo-field";
import { BusyButton } from "./ui/busy-button";
import { FormAlert } from "./ui/form-alert";
import { useBrandingEditor } from "./use-branding-editor";

const LINKS = ["supportUrl", "termsUrl", "privacyUrl"] as const;

/**
 * Every branding field with a live preview of the consent screen. The logo
 * is the image itself (uploaded at once, or fetched from an https address on
 * save); saving replaces the whole record (PUT /api/partner/branding), and
 * each refused field says why next to its input, in the person's language.
 */
export function BrandingEditor(props: {
  partnerId: string;
  partnerName: string;
  registeredDomain: string | null;
  initial: BrandingRecord;
  csrf: string;
}) {
  const t = useTranslations("Dashboard");
  const editor = useBrandingEditor(
    { partnerId: props.partnerId, csrf: props.csrf },
    props.initial,
    props.registeredDomain,
  );
  const { draft, problems, busy } = editor;
  const bind = (name: keyof typeof draft) => ({
    value: draft[name],
    messages: problems.fields[name],
    onChange: editor.set(name),
  });

  return (
    <section id="branding" className="dashboard-grid" aria-labelledby="branding-title">
      <form onSubmit={(event) => void editor.save(event)} className="card stack" noValidate>
        <h2 id="branding-title">{t("brandingTitle")}</h2>
        <FormAlert items={problems.general} />
        <BrandingTextField
          name="displayName"
          type="text"
          help={t("displayNameHelp", { partner: props.partnerName })}
          {...bind("displayName")}
        />
        <LogoField
          logo={editor.logo}
          partnerName={draft.displayName.trim() || props.partnerName}
          busy={busy === "upload" || busy === "remove" ? busy : null}
          problems={problems.fields.logo}
          onUpload={(file) => void editor.upload(file)}
          onRemove={() => void editor.removeLogo()}
        />
        {/* A refused logo address is the API's logoUrl. */}
        <LogoAddressField {...bind("logoAddress")} messages={problems.fields.logoUrl} />
        <AccentColorField {...bind("accentColor")} />
        {props.registeredDomain ? (
          <p className="muted small">{t("pinnedDomain", { domain: props.registeredDomain })}</p>
        ) : null}
        {LINKS.map((name) => (
          <div key={name}>
            <BrandingTextField name={name} type="url" {...bind(name)} />
          </div>
        ))}
        <PurposeField {...bind("purpose")} />
        <DefaultLanguageField {...bind("defaultLanguage")} />
        <p className="actions">
          <BusyButton type="submit" busy={busy === "save"} busyLabel={t("saving")}>
            {t("save")}
          </BusyButton>
          <span
            role="status"
            className="save-status"
            data-tone={editor.failed ? "error" : "success"}
            data-testid="branding-status"
          >
            {editor.status}
          </span>
        </p>
      </form>
      <BrandingPreview
        displayName={draft.displayName}
        fallbackName={props.partnerName}
        accentColor={draft.accentColor}
        purpose={draft.purpose}
        logo={editor.logo}
      />
    </section>
  );
}
