import { getLocale, getTranslations } from "next-intl/server";
import { CONTINUE_PATH } from "@/lib/flow/continue";
import { csrfToken } from "@/lib/flow/csrf";
import { FlowShell, SERVICE_NAME } from "../_components/flow-shell";
import { loadFlowScreen, type LoadedFlow } from "../_lib/context";

type Search = {
  returnUrl?: string;
  sent?: string;
  email?: string;
  error?: string;
  left?: string;
  retry?: string;
  reconfirm?: string;
};

/**
 * SPEC 4.2 / DESIGN.md §6.2: an email form (prefilled by login_hint, never
 * trusted); then "open the link" with the code as an alternative, or — with
 * challenge=pin_code — the code form first. Plain forms: no JavaScript needed.
 * Inside a flow, signing in continues that flow (as whoever signed in);
 * `reconfirm=1` says why a stale session is asked to sign in again.
 */
export default async function LoginPage({ searchParams }: { searchParams: Promise<Search> }) {
  const search = await searchParams;
  const { flow, user, branding } = await loadFlowScreen();
  const session = await getTranslations("Session");
  const t = await getTranslations("Login");
  const partner = branding?.name ?? SERVICE_NAME;
  const email = search.email ?? flow?.loginHint ?? "";
  const returnUrl = search.returnUrl || (flow ? CONTINUE_PATH : "");
  const reconfirm = search.reconfirm === "1" && flow !== null;
  const sent = search.sent === "1" && email !== "";

  return (
    <FlowShell flow={flow} branding={branding} user={user}>
      <h1>{sent ? t("sentTitle") : reconfirm ? session("reconfirmTitle") : t("title")}</h1>
      <LoginMessage search={search} />
      {sent ? (
        <>
          <p>
            {flow?.challenge === "pin_code" ? t("sentCode", { email }) : t("sentLink", { email })}
          </p>
          {flow?.challenge === "pin_code" ? null : <p>{t("typeCodeInstead")}</p>}
          <CodeForm flow={flow} email={email} returnUrl={returnUrl} />
          <EmailForm flow={flow} email={email} returnUrl={returnUrl} resend />
        </>
      ) : (
        <>
          {reconfirm ? (
            <p className="notice">{session("reconfirm")}</p>
          ) : (
            <p>{t("intro", { partner })}</p>
          )}
          <EmailForm flow={flow} email={email} returnUrl={returnUrl} />
        </>
      )}
    </FlowShell>
  );
}

async function LoginMessage({ search }: { search: Search }) {
  const t = await getTranslations("Login");
  const parsed = Number.parseInt(search.retry ?? "", 10);
  const seconds = Number.isFinite(parsed) && parsed > 0 ? parsed : 60;
  const left = Number.parseInt(search.left ?? "", 10);
  const when = inAWhile(await getLocale(), seconds);
  const messages: Record<string, string> = {
    invalid_email: t("invalidEmail"),
    wrong: t("wrongCode", { attemptsLeft: Number.isFinite(left) ? left : 0 }),
    locked: t("locked"),
    expired: t("expired"),
    throttled: t("throttled", { seconds }),
    // The PIN budget paused codes (lib/auth/pin-budget.ts); the link still signs in.
    pin_closed: t("pinClosed", { when }),
    too_many_failures: t("tooManyFailures", { when }),
    code_format: t("codeFormat"),
  };
  const message = search.error ? messages[search.error] : undefined;
  return message ? (
    <p className="alert" role="alert">
      {message}
    </p>
  ) : null;
}

/**
 * "in 3 hours", "in 2 days" in the screen's language: a wait of minutes to
 * months, rounded up, and free of the time zone the server cannot know.
 */
function inAWhile(locale: string, seconds: number): string {
  const format = new Intl.RelativeTimeFormat(locale, { numeric: "always" });
  const minutes = Math.ceil(seconds / 60);
  if (minutes < 90) return format.format(minutes, "minute");
  const hours = Math.ceil(seconds / 3600);
  if (hours < 48) return format.format(hours, "hour");
  return format.format(Math.ceil(seconds / 86_400), "day");
}

async function EmailForm({
  flow,
  email,
  returnUrl,
  resend = false,
}: {
  flow: LoadedFlow | null;
  email: string;
  returnUrl: string;
  resend?: boolean;
}) {
  const t = await getTranslations("Login");
  return (
    <form method="post" action="/login/request" className="stack">
      {flow ? <input type="hidden" name="csrf" value={csrfToken(flow, "login")} /> : null}
      <input type="hidden" name="returnUrl" value={returnUrl} />
      {resend ? (
        <>
          <input type="hidden" name="email" value={email} />
          <p className="small">
            <button type="submit" className="button-link">
              {t("resend")}
            </button>{" "}
            ·{" "}
            <a href={`/login?returnUrl=${encodeURIComponent(returnUrl)}`}>{t("differentEmail")}</a>
          </p>
        </>
      ) : (
        <>
          <div className="field">
            <label htmlFor="email">{t("emailLabel")}</label>
            <input
              id="email"
              name="email"
              type="email"
              autoComplete="email"
              required
              defaultValue={email}
              aria-describedby="email-help"
            />
            <span id="email-help" className="field-help">
              {t("emailHelp")}
            </span>
          </div>
          <p>
            <button type="submit" className="button">
              {t("submit")}
            </button>
          </p>
        </>
      )}
    </form>
  );
}

async function CodeForm({
  flow,
  email,
  returnUrl,
}: {
  flow: LoadedFlow | null;
  email: string;
  returnUrl: string;
}) {
  const t = await getTranslations("Login");
  return (
    <form method="post" action="/login/code" className="stack">
      {flow ? <input type="hidden" name="csrf" value={csrfToken(flow, "login")} /> : null}
      <input type="hidden" name="returnUrl" value={returnUrl} />
      <input type="hidden" name="email" value={email} />
      <div className="field">
        <label htmlFor="code">{t("codeLabel")}</label>
        <input
          id="code"
          name="code"
          type="text"
          inputMode="numeric"
          autoComplete="one-time-code"
          pattern="[0-9]{6}"
          maxLength={6}
          required
        />
      </div>
      <p>
        <button type="submit" className="button">
          {t("codeSubmit")}
        </button>
      </p>
    </form>
  );
}
