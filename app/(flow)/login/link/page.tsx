import { getTranslations } from "next-intl/server";
import { inspectLoginLink } from "@/lib/auth/login-challenges";
import { FlowShell } from "../../_components/flow-shell";
import { loadFlowScreen } from "../../_lib/context";

/**
 * The magic link's landing page (DESIGN.md §6.2). Opening it consumes
 * nothing — mail scanners fetch links — so it shows a button; only a POST
 * from the browser that asked signs in.
 */
export default async function LoginLinkPage({
  searchParams,
}: {
  searchParams: Promise<{ token?: string; result?: string }>;
}) {
  const { token = "", result } = await searchParams;
  const { flow, user, branding } = await loadFlowScreen();
  const t = await getTranslations("LoginLink");
  const link = await inspectLoginLink(token);
  const problem =
    result === "other_browser"
      ? t("otherBrowser")
      : link.status === "valid"
        ? null
        : t(link.status);

  return (
    <FlowShell flow={flow} branding={branding} user={user}>
      <h1>{t("title")}</h1>
      {problem ? (
        <>
          <p className={result === "other_browser" ? "notice" : "alert"} role="alert">
            {problem}
          </p>
          <p>
            <a href="/login">{t("startAgain")}</a>
          </p>
        </>
      ) : link.status === "valid" ? (
        <form method="post" action="/login/link/confirm" className="stack">
          <p>{t("confirmIntro", { email: link.email })}</p>
          <input type="hidden" name="token" value={token} />
          <p>
            <button type="submit" className="button">
              {t("confirm")}
            </button>
          </p>
        </form>
      ) : null}
    </FlowShell>
  );
}
