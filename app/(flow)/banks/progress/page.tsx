import { redirect } from "next/navigation";
import { ClientMessages } from "@/lib/i18n/client-messages";
import { getTranslations } from "next-intl/server";
import { findIngestStatus } from "@/lib/flow/bank-ingest";
import { csrfToken } from "@/lib/flow/csrf";
import { FlowShell } from "../../_components/flow-shell";
import { loadFlowScreen } from "../../_lib/context";
import { ProgressView } from "./progress-view";
import "../banks.css";

/** Without JavaScript the page reloads itself this often (seconds). */
const REFRESH_SECONDS = 1;

/**
 * After the bank's approval: what is being fetched and stored, never a blank
 * wait. A small script polls /banks/progress/status; without JavaScript a
 * refresh does. Once the accounts and balances are stored the browser goes
 * on (GET /banks/finish); a failure offers to try again.
 */
export default async function BankProgressPage() {
  const { flow, user, branding } = await loadFlowScreen();
  if (!flow) redirect("/error?reason=expired");
  if (!user || flow.userId !== user.userId) redirect("/login");
  const status = await findIngestStatus(flow.id);
  if (!status) redirect("/banks");
  if (status.ready) redirect("/banks/finish");
  const t = await getTranslations("BankProgress");

  if (status.state === "failed") {
    const reason =
      status.failure === "busy"
        ? "busy"
        : status.failure === "interrupted"
          ? "interrupted"
          : "failed";
    return (
      <FlowShell flow={flow} branding={branding} user={user} step="bank">
        <h1>{t("failedTitle")}</h1>
        <p className="alert" role="alert">
          {t(reason)}
        </p>
        <div className="progress-actions">
          <form method="post" action="/banks/start">
            <input type="hidden" name="csrf" value={csrfToken(flow, "bank")} />
            <input type="hidden" name="bank" value={status.bank.name} />
            <input type="hidden" name="country" value={status.bank.country} />
            <input type="hidden" name="psuType" value={status.bank.psuType} />
            <button type="submit" className="button">
              {t("tryAgain")}
            </button>
          </form>
          <a href="/banks">{t("chooseAnother")}</a>
        </div>
      </FlowShell>
    );
  }

  return (
    <FlowShell flow={flow} branding={branding} user={user} step="bank">
      <noscript>
        <meta httpEquiv="refresh" content={String(REFRESH_SECONDS)} />
      </noscript>
      <ClientMessages namespaces={["BankProgress"]}>
        <ProgressView
          bank={status.bank.name}
          initial={{
            state: status.state,
            accountsDone: status.accountsDone,
            accountsTotal: status.accountsTotal,
          }}
        />
      </ClientMessages>
    </FlowShell>
  );
}
