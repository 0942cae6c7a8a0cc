"use client";

import { useTranslations } from "next-intl";
import { useEffect, useRef, useState } from "react";
import { FocusedAlert, useShownError } from "../setup/focused-alert";
import { postAction } from "./account-requests";
import { ConfirmAction } from "./confirm-action";
import { useEndedAccess } from "./ended-access";

export interface AccessItem {
  partnerId: string;
  name: string;
  logoUrl: string | null;
  keys: { prefix: string; granted: string; expires: string; lastUsed: string | null }[];
}

/**
 * Applications with access: each partner with its live keys, and "End
 * access" behind a confirmation that says what the partner loses, and what
 * it keeps: data it already read and a key it was already given cannot be
 * taken back. Every key of the partner's clients for this person is revoked
 * at once.
 */
export function AccessList({ items, csrf }: { items: AccessItem[]; csrf: string }) {
  const t = useTranslations("Account.access");
  const [shown, setShown] = useState(items);
  const [confirming, setConfirming] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const [ended, setEnded] = useState<string | null>(null);
  const alert = useShownError();
  const status = useRef<HTMLParagraphElement>(null);
  const { markEnded } = useEndedAccess();

  useEffect(() => {
    if (ended) status.current?.focus();
  }, [ended]);

  async function end(item: AccessItem) {
    setBusy(true);
    alert.clear();
    const answer = await postAction("/account/access/end", {
      csrf,
      partnerId: item.partnerId,
    });
    setBusy(false);
    if (answer.ok || answer.error === "not_found") {
      setShown((list) => list.filter((other) => other.partnerId !== item.partnerId));
      setConfirming(null);
      setEnded(item.name);
      markEnded(item.partnerId);
    } else {
      alert.show(t("failed"));
    }
  }

  return (
    <section aria-labelledby="access-title" className="stack account-section">
      <h2 id="access-title">{t("title")}</h2>
      {items.length > 0 ? (
        <p className="hint" id="access-held-note">
          {t("heldNote")}
        </p>
      ) : null}
      {ended ? (
        <p ref={status} className="alert alert-success" role="status" tabIndex={-1}>
          {t("ended", { partner: ended })}
        </p>
      ) : null}
      <FocusedAlert error={alert.error} />
      {shown.length === 0 ? <p className="muted">{t("none")}</p> : null}
      <ul className="list-plain stack account-list">
        {shown.map((item) => (
          <li key={item.partnerId} className="account-item" data-testid="access-item">
            <div className="account-item-head">
              {item.logoUrl ? (
                // eslint-disable-next-line @next/next/no-img-element -- served by us, sized by CSS
                <img className="account-logo" src={item.logoUrl} alt="" />
              ) : (
                <span className="flow-monogram account-logo" aria-hidden="true">
                  {Array.from(item.name)[0]?.toUpperCase()}
                </span>
              )}
              <h3>{item.name}</h3>
            </div>
            <ul className="list-plain account-keys">
              {item.keys.map((key) => (
                <li key={key.prefix}>
                  <span>{t("granted", { date: key.granted })}</span>
                  <span>{t("expires", { date: key.expires })}</span>
                  <span>
                    {key.lastUsed ? t("lastUsed", { date: key.lastUsed }) : t("neverUsed")}
                  </span>
                </li>
              ))}
            </ul>
            <ConfirmAction
              id={`end-${item.partnerId}`}
              open={confirming === item.partnerId}
              busy={busy}
              title={t("confirmTitle", { partner: item.name })}
              body={t("confirmBody", { partner: item.name })}
              note={t("confirmHeld", { partner: item.name })}
              confirmLabel={t("confirm")}
              cancelLabel={t("cancel")}
              actionLabel={t("end")}
              subject={item.name}
              onOpen={() => setConfirming(item.partnerId)}
              onCancel={() => setConfirming(null)}
              onConfirm={() => void end(item)}
            />
          </li>
        ))}
      </ul>
    </section>
  );
}
