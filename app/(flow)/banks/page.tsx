import { cookies } from "next/headers";
import { ClientMessages } from "@/lib/i18n/client-messages";
import { redirect } from "next/navigation";
import { getLocale, getTranslations } from "next-intl/server";
import { tenantSubject } from "@/lib/banking/tenants";
import {
  initialsOf,
  isPopular,
  presetCountry,
  toneOf,
  type PickerBank,
} from "@/lib/flow/bank-list";
import { lastCountryCookieName } from "@/lib/flow/banks";
import { connectedBanks } from "@/lib/flow/connections";
import { csrfToken } from "@/lib/flow/csrf";
import { FLOW_ENDED_PATH } from "@/lib/flow/dead-ends";
import { upstream } from "@/lib/upstream";
import { FlowShell } from "../_components/flow-shell";
import { FocusMessage } from "../_components/focus-message";
import { loadFlowScreen } from "../_lib/context";
import { BankPicker } from "./bank-picker";
import "./banks.css";

type Search = { q?: string; country?: string; type?: string; notice?: string };

const single = (value: unknown) => (typeof value === "string" ? value : undefined);

/**
 * The bank picker: the upstream's banks with search as you type, a country
 * preset from the browser's last pick or the flow's language, the account
 * type, the country's popular banks first and test-only banks apart.
 */
export default async function BanksPage({ searchParams }: { searchParams: Promise<Search> }) {
  const search = await searchParams;
  const { flow, user, branding } = await loadFlowScreen();
  if (!flow) redirect(FLOW_ENDED_PATH);
  if (!user || flow.userId !== user.userId) redirect("/login");
  const t = await getTranslations("Banks");
  const locale = await getLocale();
  const regionNames = new Intl.DisplayNames([locale], { type: "region" });
  const countryName = (code: string) => regionNames.of(code) ?? code;

  const connections = await connectedBanks(
    tenantSubject(flow.client.partner?.id ?? null, { id: user.userId, email: user.email }),
  );
  const connectedKeys = new Set(
    connections.map((connection) => `${connection.aspspCountry}:${connection.aspspName}`),
  );
  const allBanks = await upstream().listBanks();
  const countries = [...new Set(allBanks.map((bank) => bank.country))]
    .map((code) => ({ code, name: countryName(code) }))
    .sort((a, b) => a.name.localeCompare(b.name, locale));
  const banks: PickerBank[] = allBanks.map((bank) => ({
    name: bank.name,
    country: bank.country,
    psuTypes: [...bank.psuTypes],
    testOnly: bank.testOnly ?? false,
    popular: isPopular(bank.name, bank.country),
    connected: connectedKeys.has(`${bank.country}:${bank.name}`),
    initials: initialsOf(bank.name, bank.country),
    tone: toneOf(bank.name),
  }));
  const country = presetCountry({
    asked: single(search.country),
    lastPick: (await cookies()).get(lastCountryCookieName())?.value,
    locale,
    countries: countries.map((entry) => entry.code),
  });
  const psuType = single(search.type) === "business" ? "business" : "personal";

  const csrf = csrfToken(flow, "bank");

  return (
    <FlowShell flow={flow} branding={branding} user={user} step="bank">
      <h1>{t("title")}</h1>
      <p>{t("intro")}</p>
      {search.notice === "denied" || search.notice === "failed" ? (
        <FocusMessage>
          <p>{t(search.notice)}</p>
        </FocusMessage>
      ) : search.notice === "connected" && connections.length > 0 ? (
        <FocusMessage tone="success">
          <p>{t("alreadyConnected")}</p>
        </FocusMessage>
      ) : null}
      {connections.length > 0 ? (
        <section aria-labelledby="connected-title" className="picker-connected">
          <h2 id="connected-title" className="picker-group">
            {t("connectedTitle")}
          </h2>
          <ul className="bank-list picker-list">
            {connections.map((connection) => (
              <li key={connection.id} className="bank-row bank-row-static">
                <span
                  className={`bank-badge tone-${toneOf(connection.aspspName)}`}
                  aria-hidden="true"
                >
                  {initialsOf(connection.aspspName, connection.aspspCountry)}
                </span>
                <span className="bank-row-text">
                  <span className="bank-row-name">{connection.aspspName}</span>
                  <span className="bank-row-meta">
                    {countryName(connection.aspspCountry)} ·{" "}
                    {t("accounts", { count: connection.accountCount })}
                  </span>
                </span>
              </li>
            ))}
          </ul>
          <form method="post" action="/banks/continue">
            <input type="hidden" name="csrf" value={csrf} />
            <button type="submit" className="button picker-continue">
              {t("continue")}
            </button>
          </form>
          <h2 className="picker-group">{t("addAnother")}</h2>
        </section>
      ) : null}
      <ClientMessages namespaces={["Banks"]}>
        <BankPicker
          banks={banks}
          countries={countries}
          initial={{ q: single(search.q) ?? "", country, psuType }}
          csrf={csrf}
        />
      </ClientMessages>
    </FlowShell>
  );
}
