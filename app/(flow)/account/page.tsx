import { cookies } from "next/headers";
import { redirect } from "next/navigation";
import { getLocale, getTranslations } from "next-intl/server";
import { loadAccountOverview } from "@/lib/account/overview";
import { deletedPagePath, wayBackForUser } from "@/lib/account/way-back";
import { consentEnd, renewPath } from "@/lib/account/renew-consent";
import { ACCOUNT_ACTION_PAGES, accountCsrfToken } from "@/lib/account/session";
import { findSessionUser, isFreshSignIn, sessionCookieName } from "@/lib/auth/sessions";
import { reconfirmChangePath } from "@/lib/flow/continue";
import { tenantSubject } from "@/lib/banking/tenants";
import { isDatabaseUnavailable } from "@/lib/db/faults";
import { getEnv } from "@/lib/env";
import { flowCookieName } from "@/lib/flow/flows";
import { ClientMessages } from "@/lib/i18n/client-messages";
import { FlowShell, SERVICE_NAME } from "../_components/flow-shell";
import { KeySetup } from "../setup/key-setup";
import { AccessList } from "./access-list";
import { BankList } from "./bank-list";
import { DeleteForm } from "./delete-form";
import { EndedAccessProvider } from "./ended-access";
import { KeyPanel } from "./key-panel";
import { PersonalKeysPanel } from "./personal-keys-panel";
import { PasskeyPanel } from "./passkey-panel";
import "./account.css";

/**
 * "My access" (docs/account.md): the signed-in person's own page, with the
 * flow's sign-in and look. It lists the applications that can read their
 * bank data and their bank connections, and ends either; it shows their key
 * and deletes everything on request, then says what was deleted at
 * /account/deleted. `?key=start-over` replaces a lost key with the flow's
 * own key setup. Signed out, the flow's sign-in comes first
 * and brings the person back here.
 */
/** What the bank's callback of a renewal said (lib/flow/banks.ts), for the bank list. */
const renewalNotice = (value: string | undefined) =>
  value === "connecting" || value === "denied" || value === "failed" ? value : null;

export default async function AccountPage({
  searchParams,
}: {
  searchParams: Promise<{ key?: string; from?: string; renewal?: string }>;
}) {
  const store = await cookies();
  const user = await findSessionUser(store.get(sessionCookieName())?.value).catch(
    (error: unknown) => {
      // Like the flow's screens: the error screen says the service is briefly unavailable.
      if (isDatabaseUnavailable(error)) redirect("/error?reason=unavailable");
      throw error;
    },
  );
  if (!user) redirect(`/login?${new URLSearchParams({ returnUrl: "/account" })}`);
  const t = await getTranslations("Account");
  const flow = await getTranslations("Flow");
  const locale = await getLocale();
  // Dates only, in UTC: the same text on the server and in the browser.
  const date = new Intl.DateTimeFormat(locale, { dateStyle: "medium", timeZone: "UTC" });
  const day = (iso: string) => date.format(new Date(iso));
  const regions = new Intl.DisplayNames([locale], { type: "region" });
  const overview = await loadAccountOverview(user.userId);
  // The partner the person came from (their flow, or the grant mail's link), to go back to.
  const back = await wayBackForUser({
    flowCookie: store.get(flowCookieName())?.value,
    userId: user.userId,
    from: (await searchParams).from,
  });

  if ((await searchParams).key === "start-over" && overview.key) {
    // Asked before the new key is made, not after: starting over needs a fresh sign-in.
    if (!isFreshSignIn(user))
      redirect(reconfirmChangePath(user.email, ACCOUNT_ACTION_PAGES["start-over"]));
    const setup = await getTranslations("Setup");
    return (
      <FlowShell flow={null} branding={null} user={user} step={null}>
        <h1 className="key-setup-title">{setup("title")}</h1>
        <ClientMessages namespaces={["Setup"]}>
          <KeySetup
            csrf={{
              register: accountCsrfToken(user, "start-over"),
              startOver: accountCsrfToken(user, "start-over"),
            }}
            userId={user.userId}
            email={user.email}
            registeredPublicKey={overview.key.publicKey}
            issuer={getEnv().issuer}
            subject={tenantSubject(null, { id: user.userId, email: user.email })}
            partner={SERVICE_NAME}
            service={SERVICE_NAME}
            next="/account"
            startOver
            startOverPath="/account/key/start-over"
            intro={t("key.startOverHint")}
          />
        </ClientMessages>
        <p>
          <a className="button-link" href="/account">
            {t("key.back")}
          </a>
        </p>
      </FlowShell>
    );
  }

  return (
    <FlowShell flow={null} branding={null} user={user} step={null}>
      {back ? (
        <p className="account-back">
          <a href={back.href} data-testid="back-to-partner">
            {flow("backTo", { partner: back.partner })}
          </a>
        </p>
      ) : null}
      <h1>{t("title")}</h1>
      <p className="flow-lead">{t("intro")}</p>
      <ClientMessages namespaces={["Account", "Setup"]}>
        <EndedAccessProvider>
          <AccessList
            csrf={accountCsrfToken(user, "end-access")}
            items={overview.access.map((item) => ({
              ...item,
              keys: item.keys.map((key) => ({
                prefix: key.prefix,
                granted: day(key.createdAt),
                expires: day(key.expiresAt),
                lastUsed: key.lastUsedAt ? day(key.lastUsedAt) : null,
              })),
            }))}
          />
          <BankList
            csrf={accountCsrfToken(user, "remove-bank")}
            userId={user.userId}
            publicKey={overview.key?.publicKey ?? null}
            renewal={renewalNotice((await searchParams).renewal)}
            banks={overview.banks.map((bank) => ({
              id: bank.id,
              bank: bank.bank,
              country: regions.of(bank.country) ?? bank.country,
              status: bank.status,
              validUntil: day(bank.validUntil),
              ...consentEnd(bank),
              // A consent still read by its partner (or the person's own) is renewed at its bank.
              renewHref:
                bank.status !== "Replaced" && bank.partnerAccess !== "ended"
                  ? renewPath(bank.id)
                  : null,
              partnerName: bank.partnerName,
              partnerId: bank.partnerId,
              partnerAccess: bank.partnerAccess,
              upstreamSessionEnc: bank.upstreamSessionEnc,
              accounts: bank.accounts.map((account) => ({
                id: account.id,
                currency: account.currency,
                displayNameEnc: account.displayNameEnc,
                detailsEnc: account.detailsEnc,
              })),
            }))}
          />
        </EndedAccessProvider>
        <PersonalKeysPanel user={user} hasKey={overview.key !== null} />
        <PasskeyPanel
          userId={user.userId}
          email={user.email}
          publicKey={overview.key?.publicKey ?? null}
          backupAt={overview.key?.backupAt ?? null}
          issuer={getEnv().issuer}
          service={SERVICE_NAME}
          csrf={{
            add: accountCsrfToken(user, "add-passkey"),
            remove: accountCsrfToken(user, "remove-passkey"),
            backupSaved: accountCsrfToken(user, "backup-saved"),
          }}
        />
        {overview.key ? (
          <KeyPanel
            userId={user.userId}
            publicKey={overview.key.publicKey}
            fingerprint={overview.key.fingerprint}
            created={overview.key.createdAt}
            issuer={getEnv().issuer}
            subject={tenantSubject(null, { id: user.userId, email: user.email })}
            // Exporting the key in plain form needs a fresh sign-in, as every irreversible change here.
            reconfirm={isFreshSignIn(user) ? null : reconfirmChangePath(user.email, "/account")}
          />
        ) : (
          <section aria-labelledby="key-title" className="stack account-section">
            <h2 id="key-title">{t("key.title")}</h2>
            <p className="muted">{t("key.none")}</p>
          </section>
        )}
        <DeleteForm
          csrf={accountCsrfToken(user, "delete")}
          email={user.email}
          after={deletedPagePath(back)}
        />
      </ClientMessages>
    </FlowShell>
  );
}
