"use client";

import { useLocale, useTranslations } from "next-intl";
import { useCallback, useEffect, useRef, useState } from "react";
import type * as EstimatorModule from "@/lib/keys/passphrase-strength";
import type { PassphraseStrength } from "@/lib/keys/passphrase-strength";

/** How long typing pauses before the strength is estimated again. */
const ESTIMATE_AFTER_MS = 150;

type Estimator = typeof EstimatorModule;

/**
 * The strength of a new passphrase as it is typed. The estimator (with its
 * dictionaries) is loaded on first use, not with the screen, so the setup
 * screen paints without waiting for it. `check` estimates a passphrase on
 * submit, loading the estimator if typing has not yet.
 */
export function usePassphraseStrength(personal: readonly string[]) {
  const locale = useLocale();
  const loaded = useRef<Promise<Estimator> | null>(null);
  const [typed, setTyped] = useState("");
  const [strength, setStrength] = useState<PassphraseStrength | null>(null);
  const personalKey = personal.join("\u0000");

  const check = useCallback(
    async (passphrase: string): Promise<PassphraseStrength> => {
      loaded.current ??= import("@/lib/keys/passphrase-strength");
      const estimator = await loaded.current.catch((error: unknown) => {
        loaded.current = null;
        throw error;
      });
      return estimator.estimatePassphrase(passphrase, {
        locale,
        personal: personalKey.split("\u0000"),
      });
    },
    [locale, personalKey],
  );

  useEffect(() => {
    if (!typed) return;
    let current = true;
    const timer = setTimeout(() => {
      check(typed).then(
        (found) => current && setStrength(found),
        () => undefined,
      );
    }, ESTIMATE_AFTER_MS);
    return () => {
      current = false;
      clearTimeout(timer);
    };
  }, [typed, check]);

  return {
    /** The estimate of what is typed now (null while empty or not yet estimated). */
    strength: typed ? strength : null,
    typedLength: typed.length,
    /** Follows the field: call with its value on every change. */
    watch: setTyped,
    /** Starts loading the estimator (on focus), so the first estimate comes sooner. */
    prepare: () => void check("").catch(() => undefined),
    check,
  };
}

/** The refusal of a passphrase found too weak, and what works instead (the meter says why). */
export function useWeakPassphraseText() {
  const t = useTranslations("Setup.strength");
  return () => `${t("tooWeak")} ${t("advice")}`;
}

/**
 * The meter under a new passphrase: a bar of four segments (not read out),
 * the level in words and, while too weak, why it is easy to guess (or what
 * works instead). Announced politely as it changes; the field is described
 * by it.
 */
export function StrengthMeter({
  id,
  strength,
  tooShort,
}: {
  id: string;
  strength: PassphraseStrength | null;
  /** Shorter than the minimum: said instead of the estimate. */
  tooShort: boolean;
}) {
  const t = useTranslations("Setup.strength");
  const shown = strength !== null;
  const filled = !shown ? 0 : tooShort ? 1 : Math.max(1, strength.score);
  const tone = !shown ? "" : tooShort || !strength.strong ? "weak" : "strong";
  const level = !shown ? null : tooShort ? t("short") : t(`levels.${strength.score}`);
  return (
    <div className={`strength ${tone ? `strength-${tone}` : ""}`} hidden={!shown}>
      <div className="strength-bar" aria-hidden="true">
        {[1, 2, 3, 4].map((segment) => (
          <span key={segment} className={segment <= filled ? "strength-on" : undefined} />
        ))}
      </div>
      <p id={id} className="strength-text" aria-live="polite">
        {level ? <strong className="strength-level">{t("label", { level })}</strong> : null}
        {shown && !tooShort && !strength.strong ? (
          <>
            {" "}
            {strength.warning ? t(`warnings.${strength.warning}`) : t("advice")}
            {strength.hints.map((hint) => ` ${t(`hints.${hint}`)}`)}
          </>
        ) : null}
      </p>
    </div>
  );
}
