"use client";

import { useTranslations } from "next-intl";
import { useEffect, useMemo, useRef, useState, useSyncExternalStore } from "react";
import {
  groupBanks,
  type PickerBank,
  type PickerPsuType,
  type PickerQuery,
} from "@/lib/flow/bank-list";

const subscribeToNothing = () => () => undefined;

/** How long typing pauses before the list follows. */
const DEBOUNCE_MS = 120;

/**
 * The bank list with search as you type. The server renders it whole with
 * the query of the URL, as plain forms: without JavaScript the search form
 * submits (GET /banks) and each bank row posts to /banks/start. With
 * JavaScript, typing, the country and the account type filter the list at
 * once, and the address follows so that a reload shows the same.
 */
export function BankPicker(props: {
  banks: PickerBank[];
  countries: { code: string; name: string }[];
  initial: PickerQuery;
  csrf: string;
}) {
  const t = useTranslations("Banks");
  const [q, setQ] = useState(props.initial.q);
  const [debounced, setDebounced] = useState(props.initial.q);
  const [country, setCountry] = useState(props.initial.country);
  const [psuType, setPsuType] = useState<PickerPsuType>(props.initial.psuType);
  // False in the server's rendering and during hydration, true once the script runs.
  const scripted = useSyncExternalStore(
    subscribeToNothing,
    () => true,
    () => false,
  );
  const form = useRef<HTMLFormElement>(null);
  const names = useMemo(
    () => new Map(props.countries.map((entry) => [entry.code, entry.name])),
    [props.countries],
  );
  const countryName = (code: string) => names.get(code) ?? code;

  // What was typed or chosen before the script ran is not lost: the fields are the truth.
  useEffect(() => {
    if (!form.current) return;
    const fields = new FormData(form.current);
    const typed = String(fields.get("q") ?? "");
    const chosen = String(fields.get("country") ?? "");
    const type = fields.get("type") === "business" ? "business" : "personal";
    setQ(typed);
    setDebounced(typed);
    setCountry(chosen);
    setPsuType(type);
  }, []);
  useEffect(() => {
    const timer = setTimeout(() => setDebounced(q), DEBOUNCE_MS);
    return () => clearTimeout(timer);
  }, [q]);
  // The address follows the search once the person changes it, so a reload
  // keeps it; until then it stays as the server sent it (with its notice).
  const changed = useRef(false);
  useEffect(() => {
    if (!scripted || !changed.current) return;
    const url = new URL(window.location.href);
    url.search = new URLSearchParams({ q: debounced, country, type: psuType }).toString();
    window.history.replaceState(window.history.state, "", url);
  }, [scripted, debounced, country, psuType]);

  const groups = groupBanks(props.banks, { q: debounced, country, psuType }, countryName);
  const offersBusiness = props.banks.some(
    (bank) => (!country || bank.country === country) && bank.psuTypes.includes("business"),
  );
  const shown = groups.popular.length + groups.banks.length;

  const row = (bank: PickerBank) => (
    <li key={`${bank.country}:${bank.name}`}>
      <form method="post" action="/banks/start">
        <input type="hidden" name="csrf" value={props.csrf} />
        <input type="hidden" name="bank" value={bank.name} />
        <input type="hidden" name="country" value={bank.country} />
        <input type="hidden" name="psuType" value={psuType} />
        <button type="submit" className="bank-row">
          <span className={`bank-badge tone-${bank.tone}`} aria-hidden="true">
            {bank.initials}
          </span>
          <span className="bank-row-text">
            <span className="bank-row-name">{bank.name}</span>
            <span className="bank-row-meta">
              {countryName(bank.country)}
              {bank.connected ? ` · ${t("connectedMark")}` : null}
            </span>
          </span>
          <span className="bank-row-go" aria-hidden="true">
            ›
          </span>
        </button>
      </form>
    </li>
  );

  return (
    <div className="picker">
      <form
        method="get"
        action="/banks"
        role="search"
        className="picker-search"
        ref={form}
        onSubmit={(event) => {
          if (scripted) event.preventDefault();
        }}
      >
        <div className="picker-field picker-query">
          <label htmlFor="q">{t("searchLabel")}</label>
          <input
            id="q"
            name="q"
            type="search"
            autoComplete="off"
            spellCheck={false}
            enterKeyHint="search"
            placeholder={t("searchPlaceholder")}
            defaultValue={props.initial.q}
            onChange={(event) => {
              changed.current = true;
              setQ(event.target.value);
            }}
          />
        </div>
        <div className="picker-field picker-country">
          <label htmlFor="country">{t("countryLabel")}</label>
          <select
            id="country"
            name="country"
            defaultValue={props.initial.country}
            onChange={(event) => {
              changed.current = true;
              setCountry(event.target.value);
            }}
          >
            <option value="">{t("allCountries")}</option>
            {props.countries.map((entry) => (
              <option key={entry.code} value={entry.code}>
                {entry.name}
              </option>
            ))}
          </select>
        </div>
        {offersBusiness ? (
          <fieldset className="segmented">
            <legend>{t("typeLabel")}</legend>
            {(["personal", "business"] as const).map((type) => (
              <label key={type}>
                <input
                  type="radio"
                  name="type"
                  value={type}
                  defaultChecked={props.initial.psuType === type}
                  onChange={() => {
                    changed.current = true;
                    setPsuType(type);
                  }}
                />
                <span>{t(type)}</span>
              </label>
            ))}
          </fieldset>
        ) : (
          <input type="hidden" name="type" value={psuType} />
        )}
        <button type="submit" className="button-secondary picker-submit" hidden={scripted}>
          {t("search")}
        </button>
      </form>

      <p className="visually-hidden" role="status" aria-live="polite">
        {t("results", { count: shown })}
      </p>

      {groups.popular.length > 0 ? (
        <section aria-labelledby="popular-title">
          <h2 id="popular-title" className="picker-group">
            {t("popular", { country: countryName(country) })}
          </h2>
          <ul className="bank-list picker-list">{groups.popular.map(row)}</ul>
        </section>
      ) : null}
      {groups.banks.length > 0 ? (
        <section aria-labelledby="banks-title">
          <h2 id="banks-title" className="picker-group">
            {groups.popular.length > 0 ? t("otherBanks") : t("allBanks")}
          </h2>
          <ul className="bank-list picker-list">{groups.banks.map(row)}</ul>
        </section>
      ) : null}
      {shown === 0 ? (
        <div className="picker-empty">
          <p>
            <strong>{t("noResults")}</strong>
          </p>
          <p className="muted">{t("noResultsHint")}</p>
          {country ? (
            <a
              className="button-secondary"
              href={`/banks?${new URLSearchParams({ q: debounced, country: "", type: psuType })}`}
              onClick={(event) => {
                const select = form.current?.elements.namedItem("country");
                if (!scripted || !(select instanceof HTMLSelectElement)) return;
                event.preventDefault();
                select.value = "";
                changed.current = true;
                setCountry("");
              }}
            >
              {t("searchEverywhere")}
            </a>
          ) : null}
        </div>
      ) : null}
      {groups.scenarios.length > 0 ? (
        <details className="picker-tests">
          <summary>{t("testScenarios", { count: groups.scenarios.length })}</summary>
          <p className="muted small">{t("testScenariosHelp")}</p>
          <ul className="bank-list picker-list">{groups.scenarios.map(row)}</ul>
        </details>
      ) : null}
    </div>
  );
}
