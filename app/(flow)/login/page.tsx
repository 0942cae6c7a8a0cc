import { redirect } from "next/navigation";
import { getLocale, getTranslations } from "next-intl/server";
import { CONTINUE_PATH } from "@/lib/flow/continue";
import { csrfToken } from "@/lib/flow/csrf";
import { resumePath } from "@/lib/flow/dead-ends";
import { ClientMessages } from "@/lib/i18n/client-messages";
import { FlowShell, SERVICE_NAME } from "../_components/flow-shell";
import { FocusMessage } from "../_components/focus-message";
import { loadFlowScreen, type LoadedFlow } from "../_lib/context";
import {
  dashboardSignInTitle,
  DashboardSignInIntro,
  DashboardSignInOwnData,
  isDashboardSignIn,
} from "./dashboard-sign-in";
import { PasskeySignIn } from "./passkey-sign-in";

type Search = {
  returnUrl?: string;
  sent?: string;
  email?: string;
  error?: string;
  left?: string;
  retry?: string;
  reconfirm?: string;
};

/** Why a signed-in person is asked to sign in again: before approving, or before a change. */
type Reconfirm = "1" | "change" | null;

/**
 * The sign-in page (/docs/flow, docs/protocol.md#sign-in): an email form (prefilled by login_hint, never
 * trusted); then "open the link" with the code as an alternative, or — with
 * challenge=pin_code — the code form first. Plain forms: no JavaScript needed;
 * with it, passkeys sign in too, from the email field's suggestions or a
 * button (./passkey-sign-in.tsx), never in the way of the mail.
 * Inside a flow, signing in continues that flow (as whoever signed in);
 * `reconfirm=1` says why a stale session is asked to sign in again. Someone
 * already signed in who comes back here inside a flow (Back, an old tab) is
 * sent on to the flow's current screen.
 */
export default async function LoginPage({ searchParams }: { searchParams: Promise<Search> }) {
  const search = await searchParams;
  const { flow, user, branding } = await loadFlowScreen();
  // Re-confirming before approving (a flow's), or before an irreversible change
  // (a signed-in person's, inside a flow or at /account).
  const reconfirmChange = search.reconfirm === "change" && user !== null;
  const reconfirmApproval = search.reconfirm === "1" && flow !== null;
  const reconfirm: Reconfirm = reconfirmChange ? "change" : reconfirmApproval ? "1" : null;
  if (flow && user && !reconfirm) {
    redirect(flow.userId === user.userId ? resumePath(flow, user.userId) : CONTINUE_PATH);
  }
  const session = await getTranslations("Session");
  const t = await getTranslations("Login");
  const partner = branding?.name ?? SERVICE_NAME;
  const email = search.email ?? flow?.loginHint ?? "";
  const returnUrl = search.returnUrl || (flow ? CONTINUE_PATH : "");
  const sent = search.sent === "1" && email !== "";
  const codeFirst = flow?.challenge === "pin_code";
  // The provider did not take the mail: say so, keep the address, offer another try.
  const mailFailed = search.error === "mail_failed" && !sent;
  // The partner dashboard's sign-in says whose door it is.
  const dashboard = !flow && !reconfirm && isDashboardSignIn(returnUrl);
  const title = sent
    ? t("sentTitle")
    : mailFailed
      ? t("mailFailedTitle")
      : reconfirm
        ? session("reconfirmTitle")
        : dashboard
          ? await dashboardSignInTitle()
          : t("title");

  return (
    <FlowShell flow={flow} branding={branding} user={user} step="sign_in">
      <h1>{title}</h1>
      <LoginMessage search={search} email={email} />
      {sent ? (
        <>
          <p className="wrap">{codeFirst ? t("sentCode", { email }) : t("sentLink", { email })}</p>
          {codeFirst ? null : <p className="muted">{t("typeCodeInstead")}</p>}
          <CodeForm
            flow={flow}
            email={email}
            returnUrl={returnUrl}
            reconfirm={reconfirm}
            focus={!search.error}
            invalid={CODE_ERRORS.has(search.error ?? "")}
          />
          <EmailForm flow={flow} email={email} returnUrl={returnUrl} reconfirm={reconfirm} resend />
        </>
      ) : (
        <>
          {reconfirm ? (
            <p className="notice">{session(reconfirmChange ? "reconfirmChange" : "reconfirm")}</p>
          ) : mailFailed ? null : dashboard ? (
            <DashboardSignInIntro />
          ) : (
            <p>{t("intro", { partner })}</p>
          )}
          <EmailForm
            flow={flow}
            email={email}
            returnUrl={returnUrl}
            reconfirm={reconfirm}
            focus={!search.error}
            retry={mailFailed}
            invalid={search.error === "invalid_email"}
          />
          <ClientMessages namespaces={["PasskeySignIn"]}>
            <PasskeySignIn flowId={flow?.id ?? null} returnUrl={returnUrl} />
          </ClientMessages>
          {dashboard ? <DashboardSignInOwnData /> : null}
        </>
      )}
    </FlowShell>
  );
}

/** The message's id: a field it is about is described by it. */
const MESSAGE_ID = "login-message";

/** Errors about the typed code: the code field is marked invalid. */
const CODE_ERRORS = new Set(["wrong", "expired", "code_format"]);

async function LoginMessage({ search, email }: { search: Search; email: string }) {
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
    mail_failed: t("mailFailed", { email }),
  };
  const message = search.error ? messages[search.error] : undefined;
  return message ? (
    <FocusMessage id={MESSAGE_ID} tone={search.error === "throttled" ? "warn" : "error"}>
      <p>{message}</p>
    </FocusMessage>
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
  reconfirm,
  resend = false,
  focus = false,
  retry = false,
  invalid = false,
}: {
  flow: LoadedFlow | null;
  email: string;
  returnUrl: string;
  reconfirm: Reconfirm;
  resend?: boolean;
  focus?: boolean;
  /** The last mail could not be sent: the button tries again. */
  retry?: boolean;
  /** The address was refused: the field is marked invalid and described by the message. */
  invalid?: boolean;
}) {
  const t = await getTranslations("Login");
  return (
    <form method="post" action="/login/request" className="stack">
      {flow ? <input type="hidden" name="csrf" value={csrfToken(flow, "login")} /> : null}
      <input type="hidden" name="returnUrl" value={returnUrl} />
      {reconfirm ? <input type="hidden" name="reconfirm" value={reconfirm} /> : null}
      {resend ? (
        <>
          <input type="hidden" name="email" value={email} />
          <p className="small muted">
            {t("noMail")}{" "}
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
              autoComplete="username webauthn"
              inputMode="email"
              autoCapitalize="none"
              spellCheck={false}
              required
              autoFocus={focus}
              defaultValue={email}
              aria-invalid={invalid || undefined}
              aria-describedby={invalid ? `email-help ${MESSAGE_ID}` : "email-help"}
            />
            <span id="email-help" className="field-help">
              {t("emailHelp")}
            </span>
          </div>
          <p>
            <button type="submit" className="button button-block">
              {retry ? t("retry") : t("submit")}
            </button>
          </p>
        </>
      )}
    </form>
  );
}

/**
 * The code field takes what people paste ("710 617", "710-617"): no pattern
 * and room for separators; the server normalises and says what it expects.
 */
async function CodeForm({
  flow,
  email,
  returnUrl,
  reconfirm,
  focus,
  invalid,
}: {
  flow: LoadedFlow | null;
  email: string;
  returnUrl: string;
  reconfirm: Reconfirm;
  focus: boolean;
  /** The code was refused: the field is marked invalid and described by the message. */
  invalid: boolean;
}) {
  const t = await getTranslations("Login");
  return (
    <form method="post" action="/login/code" className="stack">
      {flow ? <input type="hidden" name="csrf" value={csrfToken(flow, "login")} /> : null}
      <input type="hidden" name="returnUrl" value={returnUrl} />
      {reconfirm ? <input type="hidden" name="reconfirm" value={reconfirm} /> : null}
      <input type="hidden" name="email" value={email} />
      <div className="field">
        <label htmlFor="code">{t("codeLabel")}</label>
        <input
          id="code"
          name="code"
          type="text"
          className="input-code"
          inputMode="numeric"
          autoComplete="one-time-code"
          maxLength={20}
          required
          autoFocus={focus}
          aria-invalid={invalid || undefined}
          aria-describedby={invalid ? `code-help ${MESSAGE_ID}` : "code-help"}
        />
        <span id="code-help" className="field-help">
          {t("codeHelp")}
        </span>
      </div>
      <p>
        <button type="submit" className="button button-block">
          {t("codeSubmit")}
        </button>
      </p>
    </form>
  );
}
