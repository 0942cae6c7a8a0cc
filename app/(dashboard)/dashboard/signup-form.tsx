"use client";

import { useTranslations } from "next-intl";
import { useRouter } from "next/navigation";
import { useState, type FormEvent } from "react";
import { BusyButton } from "./ui/busy-button";
import { NO_PROBLEMS, useProblems, type Problems } from "./ui/errors";
import { FieldErrors, FormAlert } from "./ui/form-alert";
import { send } from "./ui/request";

/**
 * Self-service sign-up (docs/partner-signup.md): the person names their
 * partner and becomes its owner; the dashboard then opens on it.
 */
export function SignupForm({ csrf }: { csrf: string }) {
  const t = useTranslations("Dashboard.signup");
  const problemsOf = useProblems();
  const router = useRouter();
  const [name, setName] = useState("");
  const [busy, setBusy] = useState(false);
  const [problems, setProblems] = useState<Problems>(NO_PROBLEMS);

  async function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    if (busy) return;
    setBusy(true);
    const answer = await send<{ partner?: { id: string } }>({ csrf }, "/api/partners", {
      method: "POST",
      json: { name },
    });
    if (answer.ok && answer.body.partner) {
      router.push(`/dashboard?partner=${encodeURIComponent(answer.body.partner.id)}`);
      router.refresh();
      return;
    }
    const found = problemsOf("signup", answer);
    setProblems(found);
    setBusy(false);
    if (found.fields.name) document.getElementById("partner-name")?.focus();
  }

  const nameProblems = problems.fields.name;
  return (
    <form className="card stack" noValidate onSubmit={(event) => void submit(event)}>
      <FormAlert items={problems.general} />
      <div className="field">
        <label htmlFor="partner-name">{t("name")}</label>
        <input
          id="partner-name"
          name="name"
          type="text"
          autoComplete="organization"
          required
          maxLength={100}
          value={name}
          onChange={(event) => setName(event.target.value)}
          aria-invalid={nameProblems ? true : undefined}
          aria-describedby="partner-name-help partner-name-problem"
        />
        <span id="partner-name-help" className="field-help">
          {t("nameHelp")}
        </span>
        <FieldErrors id="partner-name-problem" messages={nameProblems} />
      </div>
      <p className="actions">
        <BusyButton type="submit" busy={busy} busyLabel={t("creating")}>
          {t("create")}
        </BusyButton>
      </p>
    </form>
  );
}
