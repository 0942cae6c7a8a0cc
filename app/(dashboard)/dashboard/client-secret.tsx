"use client";

import { useTranslations } from "next-intl";
import { useDateTime } from "@/app/_components/date-time";
import type { Reveal } from "./clients-requests";
import { SecretBox } from "./ui/secret-box";

/** A client's secret, shown once below the action that made it (`at`: a client ID or "new"). */
export function ClientSecret(props: { at: string; reveal: Reveal | null; onDone: () => void }) {
  const t = useTranslations("Dashboard.clients");
  const dateTime = useDateTime();
  const { at, reveal } = props;
  if (!reveal || reveal.at !== at) return null;
  return (
    <SecretBox
      title={
        reveal.rotated
          ? t("rotatedTitle", { name: reveal.name })
          : t("secretTitle", { name: reveal.name })
      }
      items={[
        { id: `${at}-id`, label: t("clientId"), value: reveal.clientId, testId: "client-id" },
        {
          id: `${at}-secret`,
          label: t("clientSecret"),
          value: reveal.clientSecret,
          testId: "client-secret",
        },
      ]}
      onDone={props.onDone}
    >
      {reveal.previousSecretExpiresAt ? (
        <p className="small">
          {t("previousValidUntil", { date: dateTime(reveal.previousSecretExpiresAt) })}
        </p>
      ) : null}
    </SecretBox>
  );
}
