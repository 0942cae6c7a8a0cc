import Link from "next/link";
import { getTranslations } from "next-intl/server";
import { FlowShell } from "../_components/flow-shell";

/** A neutral page for requests that cannot be relayed to any partner. */
export default async function ErrorPage({
  searchParams,
}: {
  searchParams: Promise<{ reason?: string }>;
}) {
  const { reason } = await searchParams;
  const t = await getTranslations("ErrorPage");
  return (
    <FlowShell flow={null} branding={null}>
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
