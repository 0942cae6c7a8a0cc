import { redirect } from "next/navigation";
import { getLocale, getTranslations } from "next-intl/server";
import { tenantSubject } from "@/lib/banking/tenants";
import { db } from "@/lib/db/client";
import { csrfToken } from "@/lib/flow/csrf";
import { FLOW_ENDED_PATH } from "@/lib/flow/dead-ends";
import { upstream } from "@/lib/upstream";
import { FlowShell } from "../_components/flow-shell";
import { FocusMessage } from "../_components/focus-message";
import { loadFlowScreen } from "../_lib/context";

type Search = { q?: string; country?: string; notice?: string };

/** DESIGN.md §6.4: the upstream's banks, with search and a country filter (plain GET forms). */
export default async function BanksPage({ searchParams }: { searchParams: Promise<Search> }) {
  const search = await searchParams;
  const { flow, user, branding } = await loadFlowScreen();
  if (!flow) redirect(FLOW_ENDED_PATH);
  if (!user || flow.userId !== user.userId) redirect("/login");
  const t = await getTranslations("Banks");
  const locale = await getLocale();
  const regionNames = new Intl.DisplayNames([locale], { type: "region" });

  const allBanks = await upstream().listBanks();
  const countries = [...new Set(allBanks.map((bank) => bank.country))].sort((a, b) =>
    (regionNames.of(a) ?? a).localeCompare(regionNames.of(b) ?? b, locale),
  );
  const query = (search.q ?? "").trim().toLowerCase();
  const banks = allBanks.filter(
    (bank) =>
      (!search.country || bank.country === search.country) &&
      (!query || bank.name.toLowerCase().includes(query)),
  );
  const connections = await db().connection.findMany({
    where: {
      tenant: {
        subject: tenantSubject(flow.client.partner?.id ?? null, {
          id: user.userId,
          email: user.email,
        }),
      },
    },
    select: {
      id: true,
      aspspName: true,
      aspspCountry: true,
      _count: { select: { accounts: true } },
    },
    orderBy: { createdAt: "asc" },
  });
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
        <section aria-labelledby="connected-title">
          <h2 id="connected-title">{t("connectedTitle")}</h2>
          <ul className="bank-list">
            {connections.map((connection) => (
              <li key={connection.id}>
                <span>
                  {connection.aspspName} · {regionNames.of(connection.aspspCountry)}
                </span>
                <span className="muted small">
                  {t("accounts", { count: connection._count.accounts })}
                </span>
              </li>
            ))}
          </ul>
          <form method="post" action="/banks/continue">
            <input type="hidden" name="csrf" value={csrf} />
            <button type="submit" className="button">
              {t("continue")}
            </button>
          </form>
        </section>
      ) : null}
      <form method="get" action="/banks" className="search-row" role="search">
        <div>
          <label htmlFor="q">{t("searchLabel")}</label>
          <input id="q" name="q" type="search" defaultValue={search.q ?? ""} />
        </div>
        <div>
          <label htmlFor="country">{t("countryLabel")}</label>
          <select id="country" name="country" defaultValue={search.country ?? ""}>
            <option value="">{t("allCountries")}</option>
            {countries.map((country) => (
              <option key={country} value={country}>
                {regionNames.of(country)}
              </option>
            ))}
          </select>
        </div>
        <button type="submit" className="button-secondary">
          {t("search")}
        </button>
      </form>
      {banks.length === 0 ? <p>{t("noResults")}</p> : null}
      <ul className="bank-list">
        {banks.map((bank) => (
          <li key={`${bank.country}:${bank.name}`}>
            <span>
              <strong>{bank.name}</strong>
              <br />
              <span className="muted small">{regionNames.of(bank.country)}</span>
            </span>
            <form method="post" action="/banks/start">
              <input type="hidden" name="csrf" value={csrf} />
              <input type="hidden" name="bank" value={bank.name} />
              <input type="hidden" name="country" value={bank.country} />
              {bank.psuTypes.length > 1 ? (
                <select
                  name="psuType"
                  aria-label={`${t("personal")} / ${t("business")}`}
                  defaultValue="personal"
                >
                  {bank.psuTypes.map((type) => (
                    <option key={type} value={type}>
                      {t(type)}
                    </option>
                  ))}
                </select>
              ) : (
                <input type="hidden" name="psuType" value={bank.psuTypes[0] ?? "personal"} />
              )}{" "}
              <button type="submit" className="button">
                {t("connect", { bank: bank.name })}
              </button>
            </form>
          </li>
        ))}
      </ul>
    </FlowShell>
  );
}
