import Link from "next/link";
import { cookies } from "next/headers";
import { getTranslations } from "next-intl/server";
import { findSessionUser, sessionCookieName } from "@/lib/auth/sessions";
import { isDatabaseUnavailable } from "@/lib/db/faults";
import { FlowShell } from "../_components/flow-shell";

/**
 * Who is signed in, for the sign-out button; nobody while the database is
 * unreachable (this screen is where such failures land, so it must not fail).
 */
async function signedInUser(reason: string | undefined) {
  if (reason === "unavailable") return null;
  const token = (await cookies()).get(sessionCookieName())?.value;
  return findSessionUser(token).catch((error: unknown) => {
    if (isDatabaseUnavailable(error)) return null;
    throw error;
  });
}

/** A neutral page for requests that cannot be relayed to any partner. */
export default async function ErrorPage({
  searchParams,
}: {
  searchParams: Promise<{ reason?: string }>;
}) {
  const { reason } = await searchParams;
  const t = await getTranslations("ErrorPage");
  const user = await signedInUser(reason);
  return (
    <FlowShell flow={null} branding={null} user={user}>
      <h1>{t("title")}</h1>
      <p role="alert">
        {reason === "expired"
          ? t("expired")
          : reason === "unavailable"
            ? t("unavailable")
            : t("generic")}
      </p>
      <p>
        <Link href="/">{t("home")}</Link>
      </p>
    </FlowShell>
  );
}
