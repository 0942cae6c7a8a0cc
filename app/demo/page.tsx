import { cookies } from "next/headers";
import { notFound } from "next/navigation";
import { getLocale, getTranslations } from "next-intl/server";
import {
  demoCookieName,
  demoKeysCookieName,
  isDemoEnabled,
  PENDING_LIFETIME_MS,
} from "@/lib/demo/demo";
import { KEYS_COOKIE_LIFETIME_SECONDS, KEYS_COOKIE_PATH } from "@/lib/demo/key-cookie";
import { loadDemoView, type DemoAccount } from "@/lib/demo/view";

/**
 * The demo partner's page (/demo). Everything it shows comes from the demo's
 * own backend (lib/demo), which reached the service only over HTTP.
 */

export const dynamic = "force-dynamic";

const NOTICES = ["unknown_state"] as const;

function money(locale: string, amount: string, currency: string): string {
  const value = Number(amount);
  if (!Number.isFinite(value)) return `${amount} ${currency}`;
  try {
    return new Intl.NumberFormat(locale, { style: "currency", currency }).format(value);
  } catch {
    return `${amount} ${currency}`;
  }
}

function AccountCard(props: {
  account: DemoAccount;
  locale: string;
  labels: { booked: string; available: string; transactions: string; none: string };
}) {
  const { account, locale, labels } = props;
  const booked = account.balances.find((balance) => balance.type === "ITBD");
  const available = account.balances.find((balance) => balance.type === "ITAV");
  return (
    <article className="card demo-account">
      <h3>{account.displayName ?? account.accountName ?? account.bank}</h3>
      <p className="muted">
        <span className="demo-account-name">{account.accountName}</span> · {account.ownerName} ·{" "}
        {account.bank}
      </p>
      <p>
        <code className="demo-iban">{account.iban}</code>
      </p>
      <dl>
        {booked ? (
          <>
            <dt>{labels.booked}</dt>
            <dd>{money(locale, booked.amount, booked.currency)}</dd>
          </>
        ) : null}
        {available ? (
          <>
            <dt>{labels.available}</dt>
            <dd>{money(locale, available.amount, available.currency)}</dd>
          </>
        ) : null}
      </dl>
      <h4>{labels.transactions}</h4>
      {account.transactions.length === 0 ? (
        <p className="muted">{labels.none}</p>
      ) : (
        <table className="demo-transactions">
          <tbody>
            {account.transactions.map((transaction) => (
              <tr key={transaction.id}>
                <td>{transaction.date}</td>
                <td>{transaction.description}</td>
                <td>{money(locale, transaction.amount, transaction.currency)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </article>
  );
}

export default async function DemoPage(props: {
  searchParams: Promise<Record<string, string | string[] | undefined>>;
}) {
  if (!isDemoEnabled()) notFound();
  const store = await cookies();
  const view = await loadDemoView(
    store.get(demoCookieName())?.value,
    store.get(demoKeysCookieName())?.value,
  );
  const t = await getTranslations("Demo");
  const locale = await getLocale();
  const query = await props.searchParams;
  const notice = NOTICES.find((value) => value === query.notice);
  const session = view.session;
  const status = session?.status;

  return (
    <main id="main" className="page demo">
      <div className="card stack">
        <h1>{t("title")}</h1>
        <p className="muted">{t("intro")}</p>
        {notice ? (
          <p className="alert" role="alert">
            {t("unknownState")}
          </p>
        ) : null}
        {status === "pending" || status === "processing" ? (
          <p className="notice">{t("pending")}</p>
        ) : null}
        {status === "connected" ? <p className="notice">{t("connected")}</p> : null}
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
        {status === "revoked" ? (
          <p className="notice" role="status">
            {t("revoked")}
          </p>
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
              {t("start")}
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
                }}
              />
            ))}
          </div>
          {session.lastSync ? (
            <p className="notice demo-sync-result" role="status">
              {t("syncResult", {
                accounts: session.lastSync.accounts,
                newTransactions: session.lastSync.newTransactions,
                failures: session.lastSync.failures?.length ?? 0,
              })}
            </p>
          ) : null}
          <div className="links">
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
                  {step.ok ? "✓" : "✗"} {step.label}
                </strong>
                <br />
                <code className="small wrap">{step.detail}</code>
              </li>
            ))}
          </ol>
        </section>
      ) : null}
    </main>
  );
}
