"use client";

import { useLocale, useTranslations } from "next-intl";
import { useMemo, useState, type FormEvent } from "react";
import type { BrandingRecord } from "@/lib/partners/branding-record";
import { locales } from "@/lib/i18n/locales";
import { BrandingPreview } from "./branding-preview";
import { announceChange } from "./changes";
import { LogoField } from "./logo-field";
import { BusyButton } from "./ui/busy-button";
import { NO_PROBLEMS, useProblems, type Problems } from "./ui/errors";
import { FieldErrors, FormAlert } from "./ui/form-alert";
import { send, type Answer } from "./ui/request";

type Text = "displayName" | "accentColor" | "supportUrl" | "termsUrl" | "privacyUrl" | "purpose";
type Draft = Record<Text | "defaultLanguage" | "logoAddress", string>;
type Saved = { branding: BrandingRecord };

const HEX = /^#[0-9a-fA-F]{6}$/;
const LINKS = ["supportUrl", "termsUrl", "privacyUrl"] as const;

function toDraft(branding: BrandingRecord): Draft {
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
  const locale = useLocale();
  const problemsOf = useProblems();
  const endpoint = { partnerId: props.partnerId, csrf: props.csrf };
  const [saved, setSaved] = useState(props.initial);
  const [draft, setDraft] = useState<Draft>(() => toDraft(props.initial));
  const [busy, setBusy] = useState<"save" | "upload" | "remove" | null>(null);
  const [status, setStatus] = useState("");
  // A refusal is an error, told as one: never in the colour of "saved".
  const [failed, setFailed] = useState(false);
  const [problems, setProblems] = useState<Problems>(NO_PROBLEMS);
  const languageNames = useMemo(
    () => new Intl.DisplayNames([locale], { type: "language" }),
    [locale],
  );
  const logo = saved.logoUrl;

  const set = (field: keyof Draft) => (value: string) => {
    setDraft((current) => ({ ...current, [field]: value }));
    setStatus("");
  };

  /** Applies an answer: the saved record on success, the sentences otherwise. */
  function settle(answer: Answer<Partial<Saved>>, done: string, keepDraft: boolean): boolean {
    setBusy(null);
    if (answer.ok && answer.body.branding) {
      const branding = answer.body.branding;
      setSaved(branding);
      setDraft((current) => (keepDraft ? current : toDraft(branding)));
      setProblems(NO_PROBLEMS);
      setStatus(done);
      setFailed(false);
      announceChange();
      return true;
    }
    const found = problemsOf("branding", answer, { domain: props.registeredDomain });
    setProblems(found);
    setStatus(found.general.length ? "" : t("notSaved"));
    setFailed(true);
    const first = Object.keys(found.fields)[0];
    if (first) document.getElementById(first === "logoUrl" ? "logoAddress" : first)?.focus();
    return false;
  }

  async function save(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    if (busy) return;
    setBusy("save");
    setStatus("");
    const { logoAddress, ...fields } = draft;
    const answer = await send<Partial<Saved>>(endpoint, "/api/partner/branding", {
      method: "PUT",
      json: { ...fields, logoUrl: logoAddress.trim() || logo },
    });
    settle(answer, t("saved"), false);
  }

  async function upload(file: File) {
    setBusy("upload");
    setStatus("");
    const answer = await send<Partial<Saved>>(endpoint, "/api/partner/logo", {
      method: "POST",
      body: file,
      contentType: file.type,
    });
    settle(answer, t("logoUploaded"), true);
  }

  async function removeLogo() {
    setBusy("remove");
    setStatus("");
    const answer = await send<Partial<Saved>>(endpoint, "/api/partner/branding", {
      method: "PUT",
      json: { ...saved, logoUrl: null },
    });
    settle(answer, t("logoRemoved"), true);
  }

  const field = (name: Text, extra: { type: string; help?: string; autoComplete?: string }) => {
    const messages = problems.fields[name];
    return (
      <div className="field">
        <label htmlFor={name}>{t(`fields.${name}`)}</label>
        <input
          id={name}
          name={name}
          type={extra.type}
          autoComplete={extra.autoComplete ?? "off"}
          value={draft[name]}
          onChange={(event) => set(name)(event.target.value)}
          aria-invalid={messages ? true : undefined}
          aria-describedby={`${extra.help ? `${name}-help ` : ""}${name}-problem`}
        />
        {extra.help ? (
          <span id={`${name}-help`} className="field-help">
            {extra.help}
          </span>
        ) : null}
        <FieldErrors id={`${name}-problem`} messages={messages} />
      </div>
    );
  };

  return (
    <section id="branding" className="dashboard-grid" aria-labelledby="branding-title">
      <form onSubmit={(event) => void save(event)} className="card stack" noValidate>
        <h2 id="branding-title">{t("brandingTitle")}</h2>
        <FormAlert items={problems.general} />
        {field("displayName", {
          type: "text",
          help: t("displayNameHelp", { partner: props.partnerName }),
        })}
        <LogoField
          logo={logo}
          partnerName={draft.displayName.trim() || props.partnerName}
          busy={busy === "upload" || busy === "remove" ? busy : null}
          problems={problems.fields.logo}
          onUpload={(file) => void upload(file)}
          onRemove={() => void removeLogo()}
        />
        <div className="field">
          <label htmlFor="logoAddress">{t("fields.logoAddress")}</label>
          <input
            id="logoAddress"
            name="logoAddress"
            type="url"
            inputMode="url"
            autoComplete="off"
            placeholder="https://"
            value={draft.logoAddress}
            onChange={(event) => set("logoAddress")(event.target.value)}
            aria-invalid={problems.fields.logoUrl ? true : undefined}
            aria-describedby="logoAddress-help logoAddress-problem"
          />
          <span id="logoAddress-help" className="field-help">
            {t("logoAddressHelp")}
          </span>
          <FieldErrors id="logoAddress-problem" messages={problems.fields.logoUrl} />
        </div>
        <div className="field">
          <label htmlFor="accentColor">{t("fields.accentColor")}</label>
          <div className="colour-row">
            <input
              id="accentColor"
              name="accentColor"
              type="text"
              autoComplete="off"
              spellCheck={false}
              placeholder="#1d4ed8"
              value={draft.accentColor}
              onChange={(event) => set("accentColor")(event.target.value)}
              aria-invalid={problems.fields.accentColor ? true : undefined}
              aria-describedby="accentColor-help accentColor-problem"
            />
            <input
              type="color"
              aria-label={t("fields.accentPicker")}
              value={HEX.test(draft.accentColor) ? draft.accentColor.toLowerCase() : "#1d4ed8"}
              onChange={(event) => set("accentColor")(event.target.value)}
            />
          </div>
          <span id="accentColor-help" className="field-help">
            {t("accentHelp")}
          </span>
          <FieldErrors id="accentColor-problem" messages={problems.fields.accentColor} />
        </div>
        {props.registeredDomain ? (
          <p className="muted small">{t("pinnedDomain", { domain: props.registeredDomain })}</p>
        ) : null}
        {LINKS.map((name) => (
          <div key={name}>{field(name, { type: "url" })}</div>
        ))}
        <div className="field">
          <label htmlFor="purpose">{t("fields.purpose")}</label>
          <textarea
            id="purpose"
            name="purpose"
            rows={3}
            value={draft.purpose}
            onChange={(event) => set("purpose")(event.target.value)}
            aria-invalid={problems.fields.purpose ? true : undefined}
            aria-describedby="purpose-help purpose-problem"
          />
          <span id="purpose-help" className="field-help">
            {t("purposeHelp")}
          </span>
          <FieldErrors id="purpose-problem" messages={problems.fields.purpose} />
        </div>
        <div className="field">
          <label htmlFor="defaultLanguage">{t("fields.defaultLanguage")}</label>
          <select
            id="defaultLanguage"
            name="defaultLanguage"
            value={draft.defaultLanguage}
            onChange={(event) => set("defaultLanguage")(event.target.value)}
            aria-invalid={problems.fields.defaultLanguage ? true : undefined}
            aria-describedby="defaultLanguage-problem"
          >
            <option value="">{t("noLanguage")}</option>
            {locales.map((code) => (
              <option key={code} value={code} lang={code}>
                {new Intl.DisplayNames([code], { type: "language" }).of(code) ?? code}
                {code === locale ? "" : ` (${languageNames.of(code) ?? code})`}
              </option>
            ))}
          </select>
          <FieldErrors id="defaultLanguage-problem" messages={problems.fields.defaultLanguage} />
        </div>
        <p className="actions">
          <BusyButton type="submit" busy={busy === "save"} busyLabel={t("saving")}>
            {t("save")}
          </BusyButton>
          <span
            role="status"
            className="save-status"
            data-tone={failed ? "error" : "success"}
            data-testid="branding-status"
          >
            {status}
          </span>
        </p>
      </form>
      <BrandingPreview
        displayName={draft.displayName}
        fallbackName={props.partnerName}
        accentColor={draft.accentColor}
        purpose={draft.purpose}
        logo={logo}
      />
    </section>
  );
}
