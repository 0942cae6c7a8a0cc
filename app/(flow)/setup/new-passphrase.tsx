"use client";

import { useTranslations } from "next-intl";
import { useState, type Ref } from "react";
import { StrengthMeter, usePassphraseStrength, useWeakPassphraseText } from "./passphrase-strength";

/** The shortest passphrase a key or its backup file is kept under. */
export const MIN_PASSPHRASE = 10;

/**
 * A passphrase being chosen (a new key, a backup file, a key read from a
 * plaintext file): its strength as it is typed, and `refusal`, which checks
 * it on submit: long enough, hard enough to guess (the personal words count
 * against it) and typed the same twice. The field is marked invalid while
 * the refusal is about the passphrase itself.
 */
export function useNewPassphrase(personal: readonly string[]) {
  const t = useTranslations("Setup");
  const strength = usePassphraseStrength(personal);
  const weakText = useWeakPassphraseText();
  const [invalid, setInvalid] = useState(false);

  /** Null when the passphrase may be used; otherwise what to tell the person. */
  async function refusal(passphrase: string, confirm: string): Promise<string | null> {
    if (passphrase.length < MIN_PASSPHRASE) {
      setInvalid(true);
      return t("tooShort");
    }
    const estimate = await strength.check(passphrase).catch(() => null);
    if (!estimate) return t("failed");
    if (!estimate.strong) {
      setInvalid(true);
      return weakText();
    }
    return passphrase === confirm ? null : t("mismatch");
  }

  return { strength, invalid, setInvalid, refusal };
}

/**
 * The two fields of a passphrase being chosen, with the strength meter
 * between: `passphrase` and `confirm` in the form's data. `idPrefix` keeps
 * the ids apart where another form on the page has the same fields.
 */
export function NewPassphraseFields({
  chosen,
  idPrefix = "",
  autoFocus,
  inputRef,
}: {
  chosen: ReturnType<typeof useNewPassphrase>;
  idPrefix?: string;
  autoFocus?: boolean;
  inputRef?: Ref<HTMLInputElement>;
}) {
  const t = useTranslations("Setup");
  const id = (name: string) => `${idPrefix}${name}`;
  return (
    <>
      <div className="field">
        <label htmlFor={id("passphrase")}>{t("passphraseLabel")}</label>
        <input
          id={id("passphrase")}
          name="passphrase"
          type="password"
          autoComplete="new-password"
          minLength={MIN_PASSPHRASE}
          required
          aria-invalid={chosen.invalid || undefined}
          aria-describedby={`${id("passphrase-help")} ${id("passphrase-strength")}`}
          autoFocus={autoFocus}
          ref={inputRef}
          onFocus={chosen.strength.prepare}
          onChange={(event) => {
            chosen.setInvalid(false);
            chosen.strength.watch(event.target.value);
          }}
        />
        <StrengthMeter
          id={id("passphrase-strength")}
          strength={chosen.strength.strength}
          tooShort={chosen.strength.typedLength < MIN_PASSPHRASE}
        />
        <span id={id("passphrase-help")} className="field-help">
          {t("passphraseHelp")}
        </span>
      </div>
      <div className="field">
        <label htmlFor={id("confirm")}>{t("confirmLabel")}</label>
        <input
          id={id("confirm")}
          name="confirm"
          type="password"
          autoComplete="new-password"
          required
        />
      </div>
    </>
  );
}
