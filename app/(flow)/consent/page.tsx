import { redirect } from "next/navigation";
import { ClientMessages } from "@/lib/i18n/client-messages";
import { getLocale, getTranslations } from "next-intl/server";
import { tenantSubject } from "@/lib/banking/tenants";
import { connectedBanks } from "@/lib/flow/connections";
import { csrfToken } from "@/lib/flow/csrf";
import { FLOW_ENDED_PATH } from "@/lib/flow/dead-ends";
import { keyModeFor } from "@/lib/flow/flows";
import { passkeyChoices } from "@/lib/flow/passkey-choices";
import { SignOutForm } from "@/app/_components/sign-out-form";
import { FlowShell, SERVICE_NAME } from "../_components/flow-shell";
import { loadFlowScreen } from "../_lib/context";
import { keyProofChallenge } from "@/lib/flow/consent";
import { ApproveWithKey } from "./approve-with-key";

/**
 * What is shared (accounts.read), with whom, for how long, from which banks,
 * and who can read it. Partner-key mode approves with a plain form; user-key
 * mode unlocks the key in the browser and relays from there
 * (docs/key-model.md). Who is signed in is shown up front, with "Not you?"
 * (signs out, back to this flow's sign-in).
 */
export default async function ConsentPage() {
  const { flow, user, branding } = await loadFlowScreen();
  if (!flow) redirect(FLOW_ENDED_PATH);
  if (!user || flow.userId !== user.userId) redirect("/login");
  const subject = tenantSubject(flow.client.partner?.id ?? null, {
    id: user.userId,
    email: user.email,
  });
  const keyMode = await keyModeFor(flow.client.partner, subject);
  const connections = await connectedBanks(subject);
  if (keyMode === "user" && !user.publicKey) redirect("/setup");
  if (keyMode === "user" && connections.length === 0) redirect("/banks");

  const t = await getTranslations("Consent");
  const regionNames = new Intl.DisplayNames([await getLocale()], { type: "region" });
  const partner = branding?.name ?? SERVICE_NAME;

  return (
    <FlowShell flow={flow} branding={branding} step="approve">
      <h1>{t("title", { partner })}</h1>
      <SignOutForm user={user} button="notYou" />
      <p>{t("willRead", { partner })}</p>
      <ul className="checklist">
        <li>{t("accounts")}</li>
        <li>{t("balances")}</li>
        <li>{t("transactions")}</li>
        <li>{t("connections")}</li>
      </ul>
      <dl className="summary">
        <div>
          <dt>{t("banksTitle")}</dt>
          <dd>
            {connections.length === 0 ? (
              t("noBanks")
            ) : (
              <ul className="list-plain" aria-label={t("banksTitle")}>
                {connections.map((connection) => (
                  <li key={connection.id}>
                    {connection.aspspName} · {regionNames.of(connection.aspspCountry)}
                  </li>
                ))}
              </ul>
            )}
            {connections.length > 0 ? (
              <a href="/banks" className="small">
                {t("addBank")}
              </a>
            ) : null}
          </dd>
        </div>
        <div>
          <dt>{t("durationLabel")}</dt>
          <dd>
            {t("duration", { partner })}{" "}
            {t.rich("manageAccess", {
              // A new tab: the flow in this one goes on to the partner.
              link: (chunks) => (
                <a href="/account" target="_blank" rel="noopener">
                  {chunks}
                </a>
              ),
            })}
          </dd>
        </div>
      </dl>
      {branding?.purpose ? (
        <section aria-labelledby="purpose-title">
          <h2 id="purpose-title">{t("purposeTitle", { partner })}</h2>
          <p className="wrap">{branding.purpose}</p>
        </section>
      ) : null}
      <p className="notice small">
        {keyMode === "partner"
          ? t("encrypted", { partner, service: SERVICE_NAME })
          : t("encryptedUserKey", { partner, service: SERVICE_NAME })}
      </p>
      {keyMode === "partner" ? (
        <div className="action-bar">
          <form method="post" action="/consent/approve">
            <input type="hidden" name="csrf" value={csrfToken(flow, "approve")} />
            <button type="submit" className="button button-block">
              {t("approve")}
            </button>
          </form>
        </div>
      ) : (
        <ClientMessages namespaces={["Consent"]}>
          <ApproveWithKey
            csrf={csrfToken(flow, "approve")}
            userId={user.userId}
            registeredPublicKey={user.publicKey ?? ""}
            challenge={
              user.publicKey ? keyProofChallenge(flow, { ...user, publicKey: user.publicKey }) : ""
            }
            partner={partner}
            flowId={flow.id}
            passkeys={{
              ...(await passkeyChoices(user)),
              csrf: csrfToken(flow, "key-setup"),
            }}
          />
        </ClientMessages>
      )}
    </FlowShell>
  );
}
