"use client";

import { useLocale, useTranslations } from "next-intl";
import { useMemo } from "react";
import { locales } from "@/lib/i18n/locales";
import type { TextField } from "./branding-requests";
import { FieldErrors } from "./ui/form-alert";
import { isHexColor } from "@/lib/partners/branding-rules";

/**
 * The branding form's inputs, each with its label, its help and the refused
 * field's messages next to it (ids as the API names the field, so a refusal
 * can focus it).
 */

interface FieldProps {
  value: string;
  messages: string[] | undefined;
  onChange: (value: string) => void;
}

export function BrandingTextField(
  props: FieldProps & { name: TextField; type: string; help?: string },
) {
  const t = useTranslations("Dashboard");
  const { name, help, messages } = props;
  return (
    <div className="field">
      <label htmlFor={name}>{t(`fields.${name}`)}</label>
      <input
        id={name}
        name={name}
        type={props.type}
        autoComplete="off"
        value={props.value}
        onChange={(event) => props.onChange(event.target.value)}
        aria-invalid={messages ? true : undefined}
        aria-describedby={`${help ? `${name}-help ` : ""}${name}-problem`}
      />
      {help ? (
        <span id={`${name}-help`} className="field-help">
          {help}
        </span>
      ) : null}
      <FieldErrors id={`${name}-problem`} messages={messages} />
    </div>
  );
}

/** An https address the server fetches the logo from on save. */
export function LogoAddressField(props: FieldProps) {
  const t = useTranslations("Dashboard");
  return (
    <div className="field">
      <label htmlFor="logoAddress">{t("fields.logoAddress")}</label>
      <input
        id="logoAddress"
        name="logoAddress"
        type="url"
        inputMode="url"
        autoComplete="off"
        placeholder="https://"
        value={props.value}
        onChange={(event) => props.onChange(event.target.value)}
        aria-invalid={props.messages ? true : undefined}
        aria-describedby="logoAddress-help logoAddress-problem"
      />
      <span id="logoAddress-help" className="field-help">
        {t("logoAddressHelp")}
      </span>
      <FieldErrors id="logoAddress-problem" messages={props.messages} />
    </div>
  );
}

/** The accent colour as #rrggbb text, with a colour picker beside it. */
export function AccentColorField(props: FieldProps) {
  const t = useTranslations("Dashboard");
  return (
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
          value={props.value}
          onChange={(event) => props.onChange(event.target.value)}
          aria-invalid={props.messages ? true : undefined}
          aria-describedby="accentColor-help accentColor-problem"
        />
        <input
          type="color"
          aria-label={t("fields.accentPicker")}
          value={isHexColor(props.value) ? props.value.toLowerCase() : "#1d4ed8"}
          onChange={(event) => props.onChange(event.target.value)}
        />
      </div>
      <span id="accentColor-help" className="field-help">
        {t("accentHelp")}
      </span>
      <FieldErrors id="accentColor-problem" messages={props.messages} />
    </div>
  );
}

export function PurposeField(props: FieldProps) {
  const t = useTranslations("Dashboard");
  return (
    <div className="field">
      <label htmlFor="purpose">{t("fields.purpose")}</label>
      <textarea
        id="purpose"
        name="purpose"
        rows={3}
        value={props.value}
        onChange={(event) => props.onChange(event.target.value)}
        aria-invalid={props.messages ? true : undefined}
        aria-describedby="purpose-help purpose-problem"
      />
      <span id="purpose-help" className="field-help">
        {t("purposeHelp")}
      </span>
      <FieldErrors id="purpose-problem" messages={props.messages} />
    </div>
  );
}

/** Each language in its own name, followed by its name in the page's language. */
export function DefaultLanguageField(props: FieldProps) {
  const t = useTranslations("Dashboard");
  const locale = useLocale();
  const languageNames = useMemo(
    () => new Intl.DisplayNames([locale], { type: "language" }),
    [locale],
  );
  return (
    <div className="field">
      <label htmlFor="defaultLanguage">{t("fields.defaultLanguage")}</label>
      <select
        id="defaultLanguage"
        name="defaultLanguage"
        value={props.value}
        onChange={(event) => props.onChange(event.target.value)}
        aria-invalid={props.messages ? true : undefined}
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
      <FieldErrors id="defaultLanguage-problem" messages={props.messages} />
    </div>
  );
}
