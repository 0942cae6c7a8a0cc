"use client";

import { FormActions } from "../ui/form-actions";
import { useTranslations } from "next-intl";
import { useState, type FormEvent, type ReactNode } from "react";
import { WEBHOOK_EVENT_TYPES } from "@/lib/webhooks/types";
import { FieldErrors, FormAlert } from "../ui/form-alert";
import type { Answer } from "../ui/request";
import { useFormSubmit } from "../ui/use-form-submit";
import type { EndpointValues } from "./transport";

/**
 * An endpoint's address and the events it receives, for a new endpoint or
 * an existing one: each event type is a checkbox with what it means, a
 * refused field says why next to it, and a new endpoint's form is emptied
 * once it is added.
 */
export function EndpointForm(props: {
  prefix: string;
  initial: EndpointValues | null;
  submitLabel: string;
  busyLabel: string;
  doneLabel?: string;
  resetAfter?: boolean;
  onSubmit: (values: EndpointValues) => Promise<Answer>;
  children?: ReactNode;
}) {
  const t = useTranslations("Dashboard.webhooks");
  const [url, setUrl] = useState(props.initial?.url ?? "");
  const [types, setTypes] = useState<string[]>(props.initial?.eventTypes ?? []);
  const id = (field: string) => `${props.prefix}-${field}`;
  const { busy, status, problems, submit } = useFormSubmit({
    form: "webhook",
    send: props.onSubmit,
    doneLabel: props.doneLabel,
    onDone: () => {
      if (!props.resetAfter) return;
      setUrl("");
      setTypes([]);
    },
    // The event types are a group of boxes: its first box takes the focus.
    inputId: (field) => id(field === "eventTypes" ? `type-${WEBHOOK_EVENT_TYPES[0]}` : field),
  });

  function toggle(type: string, on: boolean) {
    setTypes((current) =>
      on ? [...new Set([...current, type])] : current.filter((one) => one !== type),
    );
  }

  function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    // Sent in the order they are listed, whatever order they were ticked in.
    const eventTypes = WEBHOOK_EVENT_TYPES.filter((type) => types.includes(type));
    void submit({ url: url.trim(), eventTypes });
  }

  return (
    <form className="stack" noValidate onSubmit={onSubmit}>
      <FormAlert items={problems.general} />
      <div className="field">
        <label htmlFor={id("url")}>{t("url")}</label>
        <input
          id={id("url")}
          name="url"
          type="url"
          inputMode="url"
          autoComplete="off"
          spellCheck={false}
          autoCapitalize="off"
          placeholder="https://api.example.com/webhooks/bank-connect"
          required
          maxLength={2048}
          value={url}
          onChange={(event) => setUrl(event.target.value)}
          aria-invalid={problems.fields.url ? true : undefined}
          aria-describedby={`${id("url-help")} ${id("url-problem")}`}
        />
        <span id={id("url-help")} className="field-help">
          {t("urlHelp")}
        </span>
        <FieldErrors id={id("url-problem")} messages={problems.fields.url} />
      </div>
      <fieldset
        className="webhook-types"
        aria-describedby={`${id("types-help")} ${id("eventTypes-problem")}`}
        aria-invalid={problems.fields.eventTypes ? true : undefined}
      >
        <legend>{t("eventTypes")}</legend>
        <span id={id("types-help")} className="field-help">
          {t("eventTypesHelp")}
        </span>
        <ul className="list-plain webhook-type-list">
          {WEBHOOK_EVENT_TYPES.map((type) => (
            <li key={type}>
              <label className="choice" htmlFor={id(`type-${type}`)}>
                <input
                  id={id(`type-${type}`)}
                  type="checkbox"
                  name="eventTypes"
                  value={type}
                  checked={types.includes(type)}
                  onChange={(event) => toggle(type, event.target.checked)}
                />
                <span>
                  <code className="webhook-type-name">{type}</code>
                  <span className="webhook-type-help">{t(`events.${type}`)}</span>
                </span>
              </label>
            </li>
          ))}
        </ul>
        <FieldErrors id={id("eventTypes-problem")} messages={problems.fields.eventTypes} />
      </fieldset>
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
