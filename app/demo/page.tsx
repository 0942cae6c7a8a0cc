import { cookies } from "next/headers";
import { notFound, redirect } from "next/navigation";
import { getLocale, getTranslations } from "next-intl/server";
import {
  demoCookieName,
  demoKeysCookieName,
  isDemoEnabled,
  PENDING_LIFETIME_MS,
} from "@/lib/demo/demo";
import { KEYS_COOKIE_LIFETIME_SECONDS, KEYS_COOKIE_PATH } from "@/lib/demo/key-cookie";
import type { DemoStep } from "@/lib/demo/partner-http";
import { loadDemoView, type DemoAccount, type DemoViewStatus } from "@/lib/demo/view";
import "./demo.css";

/**
 * The demo partner's page (/demo). Everything it shows comes from the demo's
 * own backend (lib/demo), which reached the service only over HTTP.
 */

export const dynamic = "force-dynamic";

const NOTICES = ["unknown_state", "synced"] as const;

/** The states in which the connection is over and the person may connect again. */
const ENDED: readonly DemoViewStatus[] = ["revoked", "ended", "unreadable"];

function money(locale: string, amount: string, currency: string): string {
  const value = Number(amount);
  if (!Number.isFinite(value)) return `${amount} ${currency}`;
  try {
    return new Intl.NumberFormat(locale, { style: "currency", currency }).format(value);
  } catch {
    return `${amount} ${currency}`;
  }
}

/** A booking date (YYYY-MM-DD) in the page's language, read as a calendar date (no time zone). */
function date(locale: string, value: string | null): string {
  if (!value || !/^\d{4}-\d{2}-\d{2}$/.test(value)) return value ?? "";
  return new Intl.DateTimeFormat(locale, { dateStyle: "medium", timeZone: "UTC" }).format(
    new Date(`${value}T00:00:00Z`),
  );
}

function AccountCard(props: {
  account: DemoAccount;
  locale: string;
  labels: {
    booked: string;
    available: string;
    transactions: string;
    none: string;
    date: string;
    description: string;
    amount: string;
  };
}) {
  const { account, locale, labels } = props;
  const booked = account.balances.find((balance) => balance.type === "ITBD");
  const available = account.balances.find((balance) => balance.type === "ITAV");
  const balances = [
    { label: labels.booked, balance: booked },
    { label: labels.available, balance: available },
  ].filter((item) => item.balance);
  return (
    <article className="demo-account stack" aria-labelledby={`account-${account.id}`}>
      <header className="demo-account-head">
        <h3 id={`account-${account.id}`}>
          {account.displayName ?? account.accountName ?? account.bank}
        </h3>
        <p className="muted small">
          <span className="demo-account-name">{account.accountName}</span> · {account.ownerName} ·{" "}
          {account.bank}
        </p>
        <p>
          <code className="demo-iban">{account.iban}</code>
        </p>
      </header>
      {balances.length > 0 ? (
        <dl className="demo-balances">
          {balances.map(({ label, balance }) => (
            <div key={label}>
              <dt>{label}</dt>
              <dd>{balance ? money(locale, balance.amount, balance.currency) : null}</dd>
            </div>
          ))}
        </dl>
      ) : null}
      <h4>{labels.transactions}</h4>
      {account.transactions.length === 0 ? (
        <p className="muted">{labels.none}</p>
      ) : (
        <div className="table-scroll" tabIndex={0} role="region" aria-label={labels.transactions}>
          <table className="demo-transactions">
            <thead>
              <tr>
                <th scope="col" className="demo-date">
                  {labels.date}
                </th>
                <th scope="col">{labels.description}</th>
                <th scope="col" className="demo-amount">
                  {labels.amount}
                </th>
              </tr>
            </thead>
            <tbody>
              {account.transactions.map((transaction) => (
                <tr key={transaction.id}>
                  <td className="demo-date">{date(locale, transaction.date)}</td>
                  <td>
                    {/* On a phone the date goes above the description, leaving room for the amount. */}
                    <span className="demo-date-inline">{date(locale, transaction.date)}</span>
                    {transaction.description}
                  </td>
                  <td
                    className="demo-amount"
                    data-sign={transaction.amount.startsWith("-") ? "debit" : "credit"}
                  >
                    {money(locale, transaction.amount, transaction.currency)}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </article>
  );
}

export default async function DemoPage(props: {
  searchParams: Promise<Record<string, string | string[] | undefined>>;
}) {
  if (!isDemoEnabled()) notFound();
  const store = await cookies();
  const keysCookie = store.get(demoKeysCookieName())?.value;
  const view = await loadDemoView(store.get(demoCookieName())?.value, keysCookie);
  // A page cannot delete a cookie while it renders: /demo/forget does, and comes back.
  if (view.forgetKeys) redirect("/demo/forget");
  const t = await getTranslations("Demo");
  const locale = await getLocale();
  const query = await props.searchParams;
  const notice = NOTICES.find((value) => value === query.notice);
  const session = view.session;
  const status = session?.status;
  const ended = status !== undefined && ENDED.includes(status);
  const lastSync = status === "connected" ? (session?.lastSync ?? null) : null;

  return (
    <main id="main" className="page demo">
      <div className="card stack">
        <h1>{t("title")}</h1>
        <p className="muted">{t("intro")}</p>
        {notice === "unknown_state" ? (
          <p className="alert" role="alert">
            {t("unknownState")}
          </p>
        ) : null}
        {status === "pending" || status === "processing" ? (
          <p className="notice">{t("pending")}</p>
        ) : null}
        {status === "connected" ? <p className="notice">{t("connected")}</p> : null}
        {lastSync ? (
          // At the top, where the page lands after Sync reloads it.
          <p
            className={`demo-sync-result ${notice === "synced" ? "alert alert-success" : "notice"}`}
            role="status"
          >
            {t("syncResult", {
              accounts: lastSync.accounts,
              newTransactions: lastSync.newTransactions,
              failures: lastSync.failures?.length ?? 0,
            })}
          </p>
        ) : null}
        {status === "denied" ? (
          <p className="alert" role="status">
            {t("cancelled")}
          </p>
        ) : null}
        {status === "failed" ? (
          <p className="alert" role="status">
            {t("failed")}
          </p>
        ) : null}
        {ended && session ? (
          <div className="alert alert-warn demo-ended" role="status">
            <strong className="alert-title">{t("endedTitle")}</strong>
            <p>{endedReason(t, status, session.steps)}</p>
          </div>
        ) : null}
        {status === "expired" ? (
          <p className="notice" role="status">
            {t("expired")}
          </p>
        ) : null}
        {status !== "connected" ? (
          <form method="post" action="/demo/start">
            {view.startToken ? <input type="hidden" name="csrf" value={view.startToken} /> : null}
            <button type="submit" className="button">
              {session && status !== "pending" && status !== "processing"
                ? t("connectAgain")
                : t("start")}
            </button>
          </form>
        ) : null}
      </div>

      {session && status === "connected" ? (
        <section className="card stack" aria-labelledby="accounts-title">
          <h2 id="accounts-title">{t("accountsTitle")}</h2>
          <div className="stack demo-accounts">
            {session.accounts.map((account) => (
              <AccountCard
                key={account.id}
                account={account}
                locale={locale}
                labels={{
                  booked: t("booked"),
                  available: t("available"),
                  transactions: t("transactionsTitle"),
                  none: t("noTransactions"),
                  date: t("date"),
                  description: t("description"),
                  amount: t("amount"),
                }}
              />
            ))}
          </div>
          <div className="actions">
            <form method="post" action="/demo/sync">
              <input type="hidden" name="csrf" value={session.syncToken} />
              <button type="submit" className="button">
                {t("sync")}
              </button>
            </form>
            <form method="post" action="/demo/revoke">
              <input type="hidden" name="csrf" value={session.revokeToken} />
              <button type="submit" className="button button-secondary">
                {t("revoke")}
              </button>
            </form>
          </div>
        </section>
      ) : null}

      <section className="card stack demo-storage" aria-labelledby="storage-title">
        <h2 id="storage-title">{t("storageTitle")}</h2>
        <p>{t("storageServer", { minutes: Math.round(PENDING_LIFETIME_MS / 60_000) })}</p>
        <p>
          {t("storageBrowser", {
            path: KEYS_COOKIE_PATH,
            minutes: Math.round(KEYS_COOKIE_LIFETIME_SECONDS / 60),
          })}
        </p>
      </section>

      {session ? (
        <section className="card" aria-labelledby="steps-title">
          <h2 id="steps-title">{t("stepsTitle")}</h2>
          <ol className="demo-steps">
            {session.steps.map((step, index) => (
              <li key={index} data-ok={step.ok ? "true" : "false"}>
                <strong>
                  <span aria-hidden="true">{step.ok ? "✓" : "✗"}</span>{" "}
                  {stepText(t, step.labelKey, step.label, step.values)}
                </strong>
                <code className="small wrap">
                  {stepText(t, step.detailKey, step.detail, step.values)}
                </code>
              </li>
            ))}
          </ol>
        </section>
      ) : null}
    </main>
  );
}

type DemoT = Awaited<ReturnType<typeof getTranslations<"Demo">>>;

/** A protocol step's text in the page's language; a line without a message of its own as written. */
function stepText(
  t: DemoT,
  key: string | undefined,
  fallback: string,
  values: DemoStep["values"],
): string {
  const path = `steps.${key}` as Parameters<DemoT>[0];
  return key && t.has(path) ? t(path, values ?? {}) : fallback;
}

/** Why the access ended, as far as the demo knows it. */
function endedReason(t: DemoT, status: DemoViewStatus | undefined, steps: DemoStep[]): string {
  if (status === "revoked") return t("revoked");
  if (status === "unreadable") return t("unreadable");
  const refusal = steps.findLast((step) => step.labelKey === "accessEnded")?.values;
  return t("ended", {
    status: String(refusal?.status ?? 401),
    error: String(refusal?.error ?? "invalid_token"),
  });
}
