"use client";

import { FormActions } from "./ui/form-actions";
import { useTranslations } from "next-intl";
import { useState, type FormEvent, type ReactNode } from "react";
import { FieldErrors, FormAlert } from "./ui/form-alert";
import type { Answer } from "./ui/request";
import { useFormSubmit } from "./ui/use-form-submit";

export interface ClientValues {
  name: string;
  redirectUris: string[];
}

const lines = (text: string) =>
  text
    .split("\n")
    .map((line) => line.trim())
    .filter(Boolean);

/**
 * A client's name and redirect URIs, for a new client or an existing one:
 * the button shows the request is under way, a refused field says why next
 * to it, and a new client's form is emptied once it is created.
 */
export function ClientForm(props: {
  prefix: string;
  initial: { name: string; redirectUris: string[] } | null;
  submitLabel: string;
  busyLabel: string;
  doneLabel?: string;
  resetAfter?: boolean;
  onSubmit: (values: ClientValues) => Promise<Answer>;
  children?: ReactNode;
}) {
  const t = useTranslations("Dashboard.clients");
  const [name, setName] = useState(props.initial?.name ?? "");
  const [uris, setUris] = useState(props.initial?.redirectUris.join("\n") ?? "");
  const id = (field: string) => `${props.prefix}-${field}`;
  const { busy, status, problems, submit } = useFormSubmit({
    form: "client",
    send: props.onSubmit,
    doneLabel: props.doneLabel,
    onDone: () => {
      if (!props.resetAfter) return;
      setName("");
      setUris("");
    },
    context: (values: ClientValues) => ({ redirectUris: values.redirectUris }),
    inputId: id,
  });

  function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    void submit({ name, redirectUris: lines(uris) });
  }

  return (
    <form className="stack" noValidate onSubmit={onSubmit}>
      <FormAlert items={problems.general} />
      <div className="field">
        <label htmlFor={id("name")}>{t("name")}</label>
        <input
          id={id("name")}
          name="name"
          type="text"
          autoComplete="off"
          required
          maxLength={80}
          value={name}
          onChange={(event) => setName(event.target.value)}
          aria-invalid={problems.fields.name ? true : undefined}
          aria-describedby={id("name-problem")}
        />
        <FieldErrors id={id("name-problem")} messages={problems.fields.name} />
      </div>
      <div className="field">
        <label htmlFor={id("redirectUris")}>{t("redirectUris")}</label>
        <textarea
          id={id("redirectUris")}
          name="redirectUris"
          rows={3}
          spellCheck={false}
          autoCapitalize="off"
          placeholder="https://app.example/callback"
          value={uris}
          onChange={(event) => setUris(event.target.value)}
          aria-invalid={problems.fields.redirectUris ? true : undefined}
          aria-describedby={`${id("redirectUris-help")} ${id("redirectUris-problem")}`}
        />
        <span id={id("redirectUris-help")} className="field-help">
          {t("redirectUrisHelp")}
        </span>
        <FieldErrors id={id("redirectUris-problem")} messages={problems.fields.redirectUris} />
      </div>
      <FormActions
        busy={busy}
        busyLabel={props.busyLabel}
        submitLabel={props.submitLabel}
        status={status}
      >
        {props.children}
      </FormActions>
    </form>
  );
}
