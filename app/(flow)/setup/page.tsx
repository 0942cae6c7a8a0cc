import { redirect } from "next/navigation";
import { ClientMessages } from "@/lib/i18n/client-messages";
import { getTranslations } from "next-intl/server";
import { tenantSubject } from "@/lib/banking/tenants";
import { getEnv } from "@/lib/env";
import { csrfToken } from "@/lib/flow/csrf";
import { firstStepFor, keyModeFor, STEP_PATHS } from "@/lib/flow/flows";
import { passkeyChoices } from "@/lib/flow/passkey-choices";
import { tenantHasConnection } from "@/lib/flow/steps";
import { FlowShell, SERVICE_NAME } from "../_components/flow-shell";
import { loadFlowScreen } from "../_lib/context";
import { KeySetup } from "./key-setup";

/**
 * Key setup (docs/key-model.md): the key is made (or imported) in the
 * browser; only its public half is sent, once its backup is saved.
 * `?start-over=1` (from "Forgot your passphrase?") opens starting over.
 */
export default async function SetupPage({
  searchParams,
}: {
  searchParams: Promise<{ "start-over"?: string }>;
}) {
  const { flow, user, branding } = await loadFlowScreen();
  if (!flow) redirect("/error?reason=expired");
  if (!user || flow.userId !== user.userId) redirect("/login");
  const t = await getTranslations("Setup");
  const flowT = await getTranslations("Flow");
  const partner = branding?.name ?? SERVICE_NAME;
  const subject = tenantSubject(flow.client.partner?.id ?? null, {
    id: user.userId,
    email: user.email,
  });
  // Where "Continue" leads once this browser holds the registered key.
  const next =
    STEP_PATHS[
      firstStepFor({
        keyMode: await keyModeFor(flow.client.partner, subject),
        userHasKey: true,
        tenantHasConnection: await tenantHasConnection(subject),
      })
    ];
  return (
    <FlowShell flow={flow} branding={branding} user={user} step="key">
      <h1 className="key-setup-title">{t("title")}</h1>
      <noscript>
        <p className="alert" role="alert">
          {flowT("noScript", { partner })}
        </p>
      </noscript>
      <ClientMessages namespaces={["Setup"]}>
        <KeySetup
          csrf={{
            register: csrfToken(flow, "key-setup"),
            startOver: csrfToken(flow, "start-over"),
            passkey: csrfToken(flow, "key-setup"),
          }}
          userId={user.userId}
          email={user.email}
          registeredPublicKey={user.publicKey}
          issuer={getEnv().issuer}
          subject={subject}
          partner={partner}
          service={SERVICE_NAME}
          next={next}
          startOver={(await searchParams)["start-over"] === "1"}
          flowId={flow.id}
          passkeyHoldsKey={(await passkeyChoices(user)).holdKey}
          intro={t(user.publicKey ? "introExisting" : "intro", { service: SERVICE_NAME, partner })}
        />
      </ClientMessages>
    </FlowShell>
  );
}
