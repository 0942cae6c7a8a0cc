import { redirect } from "next/navigation";
import { getTranslations } from "next-intl/server";
import { tenantSubject } from "@/lib/banking/tenants";
import { getEnv } from "@/lib/env";
import { ClientMessages } from "@/lib/i18n/client-messages";
import { csrfToken } from "@/lib/flow/csrf";
import { FlowShell, SERVICE_NAME } from "../_components/flow-shell";
import { loadFlowScreen } from "../_lib/context";
import { KeySetup } from "./key-setup";

/** DESIGN.md §6.3: the key is made (or imported) in the browser; only its public half is sent. */
export default async function SetupPage() {
  const { flow, user, branding } = await loadFlowScreen();
  if (!flow) redirect("/error?reason=expired");
  if (!user || flow.userId !== user.userId) redirect("/login");
  const t = await getTranslations("Setup");
  const flowT = await getTranslations("Flow");
  return (
    <FlowShell flow={flow} branding={branding} user={user}>
      <h1>{t("title")}</h1>
      <p>{t("intro", { service: SERVICE_NAME })}</p>
      <noscript>
        <p className="alert" role="alert">
          {flowT("noScript", { partner: branding?.name ?? SERVICE_NAME })}
        </p>
      </noscript>
      <ClientMessages namespaces={["Setup"]}>
        <KeySetup
          csrf={csrfToken(flow, "key-setup")}
          userId={user.userId}
          registeredPublicKey={user.publicKey}
          issuer={getEnv().issuer}
          subject={tenantSubject(flow.client.partner?.id ?? null, {
            id: user.userId,
            email: user.email,
          })}
        />
      </ClientMessages>
    </FlowShell>
  );
}
