import { getTranslations } from "next-intl/server";
import { FlowShell } from "../../_components/flow-shell";

type Result = "connecting" | "connected" | "denied" | "failed";
const RESULTS: readonly Result[] = ["connecting", "connected", "denied", "failed"];

/**
 * Where the bank sends the browser back for a connection that a person's own
 * key started (the command-line client's `connect`, docs/own-data.md): the
 * connection is stored for them and appears in the program, which waits for
 * it. No sign-in is needed to read this page, and it names nothing of the
 * person or the bank.
 */
export default async function OwnBankConnectedPage({
  searchParams,
}: {
  searchParams: Promise<{ result?: string }>;
}) {
  const asked = (await searchParams).result;
  const result = RESULTS.find((one) => one === asked) ?? "failed";
  const t = await getTranslations("OwnBankConnect");
  const titles: Record<Result, string> = {
    connecting: t("connectingTitle"),
    connected: t("connectedTitle"),
    denied: t("deniedTitle"),
    failed: t("failedTitle"),
  };
  const texts: Record<Result, string> = {
    connecting: t("connecting"),
    connected: t("connected"),
    denied: t("denied"),
    failed: t("failed"),
  };
  const good = result === "connecting" || result === "connected";
  return (
    <FlowShell flow={null} branding={null} step={null}>
      <h1>{titles[result]}</h1>
      <p
        className={good ? "notice" : "alert"}
        role={good ? "status" : "alert"}
        data-testid="own-bank-result"
        data-result={result}
      >
        {texts[result]}
      </p>
      <p className="hint">
        {t.rich("account", { link: (chunks) => <a href="/account">{chunks}</a> })}
      </p>
    </FlowShell>
  );
}
