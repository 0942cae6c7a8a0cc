"use client";

import { useTranslations } from "next-intl";
import { useState, type FormEvent } from "react";
import type { BrandingRecord } from "@/lib/partners/branding-record";
import {
  brandingApi,
  inputFor,
  savedBranding,
  toDraft,
  type BrandingAnswer,
  type Draft,
} from "./branding-requests";
import { announceChange } from "./changes";
import { NO_PROBLEMS, useProblems, type Problems } from "./ui/errors";
import type { Endpoint } from "./ui/request";

export type BrandingBusy = "save" | "upload" | "remove" | null;

/**
 * The branding form's state: the saved record, the draft being edited, which
 * request is under way, and what the last one said (field by field when it
 * was refused).
 */
export function useBrandingEditor(
  endpoint: Endpoint,
  initial: BrandingRecord,
  registeredDomain: string | null,
) {
  const t = useTranslations("Dashboard");
  const problemsOf = useProblems();
  const api = brandingApi(endpoint);
  const [saved, setSaved] = useState(initial);
  const [draft, setDraft] = useState<Draft>(() => toDraft(initial));
  const [busy, setBusy] = useState<BrandingBusy>(null);
  const [status, setStatus] = useState("");
  // A refusal is an error, told as one: never in the colour of "saved".
  const [failed, setFailed] = useState(false);
  const [problems, setProblems] = useState<Problems>(NO_PROBLEMS);
  const logo = saved.logoUrl;

  const set = (field: keyof Draft) => (value: string) => {
    setDraft((current) => ({ ...current, [field]: value }));
    setStatus("");
  };

  /** Applies an answer: the saved record on success, the sentences otherwise. */
  function settle(answer: BrandingAnswer, done: string, keepDraft: boolean): boolean {
    setBusy(null);
    const branding = savedBranding(answer);
    if (branding) {
      setSaved(branding);
      setDraft((current) => (keepDraft ? current : toDraft(branding)));
      setProblems(NO_PROBLEMS);
      setStatus(done);
      setFailed(false);
      announceChange();
      return true;
    }
    const found = problemsOf("branding", answer, { domain: registeredDomain });
    setProblems(found);
    setStatus(found.general.length ? "" : t("notSaved"));
    setFailed(true);
    const first = Object.keys(found.fields)[0];
    if (first) document.getElementById(inputFor(first))?.focus();
    return false;
  }

  async function save(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    if (busy) return;
    setBusy("save");
    setStatus("");
    settle(await api.save(draft, logo), t("saved"), false);
  }

  async function upload(file: File) {
    setBusy("upload");
    setStatus("");
    settle(await api.upload(file), t("logoUploaded"), true);
  }

  async function removeLogo() {
    setBusy("remove");
    setStatus("");
    settle(await api.removeLogo(saved), t("logoRemoved"), true);
  }

  return { draft, logo, busy, status, failed, problems, set, save, upload, removeLogo };
}
