import { cookies } from "next/headers";
import { redirect } from "next/navigation";
import { getTranslations } from "next-intl/server";
import { findSessionUser, sessionCookieName } from "@/lib/auth/sessions";
import { tenantSubject } from "@/lib/banking/tenants";
import { isDatabaseUnavailable } from "@/lib/db/faults";
import { getEnv } from "@/lib/env";
import { ClientMessages } from "@/lib/i18n/client-messages";
import {
  CLI_CONFIRM_PATH,
  cliConfirmToken,
  cliKeyToken,
  cliStartPath,
  parseCliStart,
} from "@/lib/oauth/cli-sign-in";
import { FlowShell, SERVICE_NAME } from "../../../_components/flow-shell";
import { CliKeySetup } from "./cli-key-setup";
import "./cli-sign-in.css";

type Search = Record<string, string | string[] | undefined>;

/** The query as sent, repeated parameters kept (a repeated one is refused, not picked from). */
function toParams(search: Search): URLSearchParams {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(search)) {
    for (const one of Array.isArray(value) ? value : value === undefined ? [] : [value]) {
      params.append(name, one);
    }
  }
  return params;
}

/**
 * GET /auth/cli/start (docs/own-data.md#the-command-line-sign-in): where the
 * command-line client sends the person's browser. The request is checked
 * first (a loopback port, an S256 challenge); then the hosted sign-in, key
 * setup for a person without a key, and the question whether to allow the
 * program. Allowing posts to /auth/cli/confirm, which sends the browser to
 * the program's listener on 127.0.0.1 with a one-time code.
 */
export default async function CliStartPage({ searchParams }: { searchParams: Promise<Search> }) {
  const params = toParams(await searchParams);
  const t = await getTranslations("CliSignIn");
  const store = await cookies();
  const user = await findSessionUser(store.get(sessionCookieName())?.value).catch(
    (error: unknown) => {
      if (isDatabaseUnavailable(error)) redirect("/error?reason=unavailable");
      throw error;
    },
  );

  if (params.get("cancelled") === "1" && params.size === 1) {
    return (
      <FlowShell flow={null} branding={null} user={user} step={null}>
        <h1>{t("cancelledTitle")}</h1>
        <p className="flow-lead" data-testid="cli-cancelled">
          {t("cancelled")}
        </p>
      </FlowShell>
    );
  }

  const start = parseCliStart(params);
  if ("problem" in start) {
    return (
      <FlowShell flow={null} branding={null} user={user} step={null}>
        <h1>{t("invalidTitle")}</h1>
        <p className="alert" role="alert" data-testid="cli-invalid">
          {t(`invalid.${start.problem}`)}
        </p>
        <p>{t("invalidNext")}</p>
      </FlowShell>
    );
  }

  if (!user) redirect(`/login?${new URLSearchParams({ returnUrl: cliStartPath(start) })}`);

  if (!user.publicKey) {
    return (
      <FlowShell flow={null} branding={null} user={user} step={null}>
        <h1 className="key-setup-title">{t("keyTitle")}</h1>
        <ClientMessages namespaces={["Setup"]}>
          <CliKeySetup
            csrf={cliKeyToken(user)}
            userId={user.userId}
            email={user.email}
            issuer={getEnv().issuer}
            subject={tenantSubject(null, { id: user.userId, email: user.email })}
            service={SERVICE_NAME}
            intro={t("keyIntro")}
          />
        </ClientMessages>
      </FlowShell>
    );
  }

  return (
    <FlowShell flow={null} branding={null} user={user} step={null}>
      <h1>{t("title")}</h1>
      <p className="flow-lead">{t("question")}</p>
      <ul className="cli-sign-in-points">
        <li>{t("reads")}</li>
        <li>{t("encrypted")}</li>
        <li>{t("revoke")}</li>
      </ul>
      <p className="hint">{t("loopback", { port: start.port })}</p>
      <form method="post" action={CLI_CONFIRM_PATH} className="cli-sign-in-actions">
        <input type="hidden" name="csrf" value={cliConfirmToken(user, start)} />
        <input type="hidden" name="port" value={start.port} />
        <input type="hidden" name="code_challenge" value={start.codeChallenge} />
        {start.state === null ? null : <input type="hidden" name="state" value={start.state} />}
        <button type="submit" name="decision" value="allow" className="button">
          {t("allow")}
        </button>
        <button type="submit" name="decision" value="cancel" className="button-secondary">
          {t("cancel")}
        </button>
      </form>
    </FlowShell>
  );
}
