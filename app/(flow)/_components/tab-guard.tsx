"use client";

import { useTranslations } from "next-intl";
import { useEffect, useState } from "react";

const CHANNEL = "bank-connect-flow";

type Announcement = { flowId: string; startedAt: number };

/**
 * One flow per browser: opening the partner's link again starts a new flow
 * and the browser's flow cookie follows it, so a page of the older flow can
 * no longer act. Each flow screen announces its flow to the browser's other
 * tabs; a tab that hears of a newer flow says so at once and offers to
 * continue with it here, before its buttons are pressed in vain.
 */
export function TabGuard({ flowId, startedAt }: Announcement) {
  const t = useTranslations("Tabs");
  const [replaced, setReplaced] = useState(false);

  useEffect(() => {
    if (typeof BroadcastChannel === "undefined") return;
    const channel = new BroadcastChannel(CHANNEL);
    const announce = () => channel.postMessage({ flowId, startedAt } satisfies Announcement);
    channel.onmessage = (event: MessageEvent<Announcement>) => {
      const other = event.data;
      if (!other || other.flowId === flowId) return;
      if (other.startedAt > startedAt) setReplaced(true);
      // An older tab that speaks up learns of this newer flow in turn.
      else announce();
    };
    announce();
    return () => channel.close();
  }, [flowId, startedAt]);

  if (!replaced) return null;
  return (
    <div className="alert alert-warn tab-notice" role="alert">
      <span className="alert-title">{t("replacedTitle")}</span>
      <p>{t("replaced")}</p>
      <a href="/login" className="button">
        {t("continueHere")}
      </a>
    </div>
  );
}
