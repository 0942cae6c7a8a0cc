"use client";

import { useTranslations } from "next-intl";
import { useEffect, useRef, useState, type FormEvent } from "react";
import type { BrandingRecord } from "@/lib/partners/branding-record";
import { readableTextOn } from "@/lib/partners/contrast";
import { announceChange } from "./changes";

type Branding = BrandingRecord;
type Field = keyof Branding;
type Violation = { field: string; message: string };

const TEXT_FIELDS: readonly Field[] = [
  "displayName",
  "logoUrl",
  "supportUrl",
  "termsUrl",
  "privacyUrl",
];
const LANGUAGES = ["da", "de", "en", "es", "fi", "fr", "it", "nb", "nl", "pl", "pt", "sv"];
const HEX = /^#[0-9a-fA-F]{6}$/;

/**
 * Every branding field with a live preview of the consent screen; saving
 * replaces the whole record (PUT /api/partner/branding), and each refused
 * field shows its message next to the input.
 */
export function BrandingEditor(props: {
  partnerId: string;
  partnerName: string;
  registeredDomain: string | null;
  initial: Branding;
  csrf: string;
}) {
  const t = useTranslations("Dashboard");
  const [draft, setDraft] = useState<Record<Field, string>>(() => toDraft(props.initial));
  const [violations, setViolations] = useState<Violation[]>([]);
  const [status, setStatus] = useState<"idle" | "saving" | "saved" | "failed">("idle");
  const query = `?partner=${encodeURIComponent(props.partnerId)}`;
  const headers = { "X-CSRF-Token": props.csrf };

  const set = (field: Field) => (value: string) => {
    setDraft((current) => ({ ...current, [field]: value }));
    setStatus("idle");
  };

  function applyAnswer(body: { branding?: Branding; violations?: Violation[] }, ok: boolean) {
    if (ok && body.branding) {
      setDraft(toDraft(body.branding));
      setViolations([]);
      setStatus("saved");
      announceChange();
    } else {
      setViolations(body.violations ?? [{ field: "body", message: t("saveFailed") }]);
      setStatus("failed");
    }
  }

  async function save(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    setStatus("saving");
    const response = await fetch(`/api/partner/branding${query}`, {
      method: "PUT",
      headers: { ...headers, "Content-Type": "application/json" },
      body: JSON.stringify(draft),
    });
    applyAnswer(await response.json().catch(() => ({})), response.ok);
  }

  async function upload(file: File | undefined) {
    if (!file) return;
    setStatus("saving");
    const response = await fetch(`/api/partner/logo${query}`, {
      method: "POST",
      headers: { ...headers, "Content-Type": file.type || "application/octet-stream" },
      body: file,
    });
    applyAnswer(await response.json().catch(() => ({})), response.ok);
  }

  const problem = (field: string) => violations.find((violation) => violation.field === field);
  const general = violations.filter(
    (violation) =>
      !(TEXT_FIELDS as readonly string[])
        .concat(["accentColor", "purpose", "defaultLanguage", "logo"])
        .includes(violation.field),
  );

  return (
    <div className="dashboard-grid">
      <form onSubmit={save} className="card stack" noValidate aria-labelledby="branding-title">
        <h2 id="branding-title">{t("brandingTitle")}</h2>
        {props.registeredDomain ? (
          <p className="muted small">{t("pinnedDomain", { domain: props.registeredDomain })}</p>
        ) : null}
        {TEXT_FIELDS.map((field) => (
          <Input
            key={field}
            field={field}
            label={t(`fields.${field}`)}
            value={draft[field]}
            onChange={set(field)}
            problem={problem(field)}
          />
        ))}
        <div className="field">
          <label htmlFor="logoFile">{t("fields.logoFile")}</label>
          <input
            id="logoFile"
            type="file"
            accept="image/png,image/jpeg,image/webp"
            aria-describedby="logoFile-help"
            onChange={(event) => void upload(event.target.files?.[0])}
          />
          <span id="logoFile-help" className="field-help">
            {t("logoHelp")}
          </span>
          <FieldProblem id="logo" problem={problem("logo")} />
        </div>
        <Input
          field="accentColor"
          label={t("fields.accentColor")}
          value={draft.accentColor}
          onChange={set("accentColor")}
          problem={problem("accentColor")}
          placeholder="#1d4ed8"
        />
        <div className="field">
          <label htmlFor="purpose">{t("fields.purpose")}</label>
          <textarea
            id="purpose"
            rows={3}
            value={draft.purpose}
            onChange={(event) => set("purpose")(event.target.value)}
            aria-invalid={Boolean(problem("purpose"))}
            aria-describedby="purpose-problem"
          />
          <FieldProblem id="purpose" problem={problem("purpose")} />
        </div>
        <div className="field">
          <label htmlFor="defaultLanguage">{t("fields.defaultLanguage")}</label>
          <select
            id="defaultLanguage"
            value={draft.defaultLanguage}
            onChange={(event) => set("defaultLanguage")(event.target.value)}
            aria-describedby="defaultLanguage-problem"
          >
            <option value="">{t("noLanguage")}</option>
            {LANGUAGES.map((language) => (
              <option key={language} value={language}>
                {language}
              </option>
            ))}
          </select>
          <FieldProblem id="defaultLanguage" problem={problem("defaultLanguage")} />
        </div>
        {general.map((violation) => (
          <p key={violation.field} className="alert" role="alert">
            {violation.message}
          </p>
        ))}
        <p>
          <button type="submit" className="button" disabled={status === "saving"}>
            {status === "saving" ? t("saving") : t("save")}
          </button>{" "}
          <span role="status" className="muted">
            {status === "saved" ? t("saved") : status === "failed" ? t("notSaved") : ""}
          </span>
        </p>
      </form>
      <Preview draft={draft} fallbackName={props.partnerName} />
    </div>
  );
}

function toDraft(branding: Branding): Record<Field, string> {
  return Object.fromEntries(
    Object.entries(branding).map(([field, value]) => [field, value ?? ""]),
  ) as Record<Field, string>;
}

function FieldProblem({ id, problem }: { id: string; problem: Violation | undefined }) {
  return (
    <span id={`${id}-problem`} className="field-error" role={problem ? "alert" : undefined}>
      {problem?.message ?? ""}
    </span>
  );
}

function Input(props: {
  field: Field;
  label: string;
  value: string;
  onChange: (value: string) => void;
  problem: Violation | undefined;
  placeholder?: string;
}) {
  return (
    <div className="field">
      <label htmlFor={props.field}>{props.label}</label>
      <input
        id={props.field}
        value={props.value}
        placeholder={props.placeholder}
        onChange={(event) => props.onChange(event.target.value)}
        aria-invalid={Boolean(props.problem)}
        aria-describedby={`${props.field}-problem`}
      />
      <FieldProblem id={props.field} problem={props.problem} />
    </div>
  );
}

/** The consent screen as a user would see it with these values (colours set through CSSOM: the CSP forbids style attributes). */
function Preview({ draft, fallbackName }: { draft: Record<Field, string>; fallbackName: string }) {
  const t = useTranslations("Dashboard");
  const consent = useTranslations("Consent");
  const ref = useRef<HTMLElement>(null);
  const name = draft.displayName.trim() || fallbackName;
  const accent = HEX.test(draft.accentColor) ? draft.accentColor : null;
  useEffect(() => {
    const element = ref.current;
    if (!element) return;
    if (accent) {
      element.style.setProperty("--accent", accent);
      element.style.setProperty("--accent-contrast", readableTextOn(accent));
    } else {
      element.style.removeProperty("--accent");
      element.style.removeProperty("--accent-contrast");
    }
  }, [accent]);
  const logo = draft.logoUrl.startsWith("/logos/") ? draft.logoUrl : null;
  return (
    <section
      ref={ref}
      className="card preview"
      aria-labelledby="preview-title"
      data-testid="preview"
    >
      <h2 id="preview-title" className="small muted">
        {t("preview")}
      </h2>
      <header className="flow-header">
        {logo ? (
          // eslint-disable-next-line @next/next/no-img-element -- served by us, sized by CSS
          <img className="flow-logo" src={logo} alt={t("logoAlt", { partner: name })} />
        ) : null}
        <span className="flow-partner">{name}</span>
      </header>
      <h3>{consent("title", { partner: name })}</h3>
      {draft.purpose.trim() ? (
        <>
          <h4>{consent("purposeTitle", { partner: name })}</h4>
          <p>{draft.purpose}</p>
        </>
      ) : null}
      <p>{consent("duration", { partner: name })}</p>
      <p>
        <span className="button">{consent("approve")}</span>
      </p>
    </section>
  );
}
