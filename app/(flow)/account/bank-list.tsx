"use client";

import { useTranslations } from "next-intl";
import { useRouter } from "next/navigation";
import { useEffect, useRef, useState, type FormEvent } from "react";
import { accountLabel, type OpenedAccount, type OpenedDetails } from "@/lib/account/account-name";
import type { PartnerAccessState } from "@/lib/account/overview";
import { openEnvelopeInBrowser } from "@/lib/keys/browser-envelope";
import { FocusedAlert, useShownError } from "../setup/focused-alert";
import { postAction } from "./account-requests";
import { passphraseOpens, useUserKey } from "./use-user-key";
import { ConfirmAction } from "./confirm-action";
import { useEndedAccess } from "./ended-access";

export interface BankItem {
  id: string;
  bank: string;
  country: string;
  status: "Active" | "Expired" | "Withdrawn" | "Replaced";
  validUntil: string;
  /** The consent's day has passed. */
  ended: boolean;
  /** Days left (0: ends today) when the end is close, else null. */
  endsInDays: number | null;
  /** Where renewing this consent at its bank starts; null when it cannot be renewed here. */
  renewHref: string | null;
  partnerName: string | null;
  partnerId: string | null;
  partnerAccess: PartnerAccessState;
  upstreamSessionEnc: string | null;
  accounts: {
    id: string;
    currency: string;
    displayNameEnc: string | null;
    detailsEnc: string | null;
  }[];
}

const RENEWAL_NOTICE = {
  connecting: "alert alert-success",
  denied: "alert alert-warn",
  failed: "alert",
} as const;

const STATUS_BADGE = {
  Active: "badge-success",
  Expired: "badge-warn",
  Withdrawn: "badge-warn",
  Replaced: "badge-info",
} as const;

/**
 * Connected banks: each connection with its accounts, and whether the
 * partner it was made for still reads it. Account names are sealed to the
 * person's key, so they are opened here, in the browser, once the key is
 * unlocked; the server never sees them. Every account is named: by the
 * person's own name for it, else the bank's (lib/account/account-name.ts). "Remove" opens the
 * connection's sealed upstream session id too, when it can, so the service
 * can close the consent at the bank before it deletes everything of it.
 */
/** How long after a renewal the list asks the server again for the new end date. */
const RENEWAL_REFRESH_MS = 2000;
const RENEWAL_REFRESH_FOR_MS = 60_000;

/**
 * After a renewal at the bank, the new consent is stored a moment later (the
 * bank's data is fetched in the background): the page asks the server again
 * every two seconds until an end date changes, for a minute at most.
 */
function useNewEndDates(renewal: BankListProps["renewal"], banks: BankItem[]) {
  const router = useRouter();
  const dates = banks.map((bank) => `${bank.id}=${bank.validUntil}`).join();
  const [datesOnArrival] = useState(dates);
  useEffect(() => {
    if (renewal !== "connecting" || dates !== datesOnArrival) return;
    const started = Date.now();
    const timer = setInterval(() => {
      if (Date.now() - started > RENEWAL_REFRESH_FOR_MS) clearInterval(timer);
      else router.refresh();
    }, RENEWAL_REFRESH_MS);
    return () => clearInterval(timer);
  }, [renewal, dates, datesOnArrival, router]);
}

interface BankListProps {
  banks: BankItem[];
  /** How a renewal started here came back from the bank, if it just did. */
  renewal: "connecting" | "denied" | "failed" | null;
  csrf: string;
  userId: string;
  publicKey: string | null;
}

export function BankList(props: BankListProps) {
  const t = useTranslations("Account.banks");
  const { key, unlock, unlockByPasskey } = useUserKey(props.userId, props.publicKey);
  const [removedIds, setRemovedIds] = useState<ReadonlySet<string>>(() => new Set());
  const shown = props.banks.filter((bank) => !removedIds.has(bank.id));
  useNewEndDates(props.renewal, props.banks);
  const [names, setNames] = useState<Record<string, string>>({});
  const [confirming, setConfirming] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const [removed, setRemoved] = useState<string | null>(null);
  const alert = useShownError();
  const status = useRef<HTMLParagraphElement>(null);
  const { ended } = useEndedAccess();
  const sealed = props.banks.some((bank) =>
    bank.accounts.some((account) => account.displayNameEnc || account.detailsEnc),
  );

  useEffect(() => {
    if (key.kind !== "unlocked") return;
    let cancelled = false;
    const privateKey = key.pair.privateKey;
    void (async () => {
      const opened: Record<string, string> = {};
      const open = <T,>(envelope: string | null) =>
        envelope
          ? openEnvelopeInBrowser<T>(privateKey, envelope).catch(() => null)
          : Promise.resolve(null);
      for (const account of props.banks.flatMap((bank) => bank.accounts)) {
        const [name, details] = await Promise.all([
          open<OpenedAccount>(account.displayNameEnc),
          open<OpenedDetails>(account.detailsEnc),
        ]);
        const label = accountLabel(name, details);
        if (label) opened[account.id] = label;
      }
      if (!cancelled) setNames(opened);
    })();
    return () => {
      cancelled = true;
    };
  }, [key, props.banks]);

  useEffect(() => {
    if (removed) status.current?.focus();
  }, [removed]);

  async function onUnlock(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const passphrase = String(new FormData(event.currentTarget).get("passphrase") ?? "");
    setBusy(true);
    const opened = await unlock(passphrase).catch(() => false);
    setBusy(false);
    if (!opened) alert.show(t("wrongPassphrase"));
    else alert.clear();
  }

  /** A key only a passkey opens: one tap, nothing sent. */
  async function onPasskeyUnlock() {
    setBusy(true);
    const outcome = await unlockByPasskey();
    setBusy(false);
    if (outcome === "unlocked" || outcome === "cancelled") alert.clear();
    else alert.show(t("failed"));
  }

  async function remove(bank: BankItem) {
    setBusy(true);
    alert.clear();
    let upstreamSessionId: string | null = null;
    if (key.kind === "unlocked" && bank.upstreamSessionEnc) {
      const opened = await openEnvelopeInBrowser<{ sessionId?: unknown }>(
        key.pair.privateKey,
        bank.upstreamSessionEnc,
      ).catch(() => null);
      if (typeof opened?.sessionId === "string") upstreamSessionId = opened.sessionId;
    }
    const answer = await postAction("/account/banks/remove", {
      csrf: props.csrf,
      connectionId: bank.id,
      upstreamSessionId,
    });
    setBusy(false);
    if (answer.ok || answer.error === "not_found") {
      setRemovedIds((ids) => new Set(ids).add(bank.id));
      setConfirming(null);
      setRemoved(bank.bank);
    } else {
      alert.show(t("failed"));
    }
  }

  return (
    <section aria-labelledby="banks-title" className="stack account-section">
      <h2 id="banks-title">{t("title")}</h2>
      {removed ? (
        <p ref={status} className="alert alert-success" role="status" tabIndex={-1}>
          {t("removed", { bank: removed })}
        </p>
      ) : null}
      {props.renewal ? (
        <p
          className={RENEWAL_NOTICE[props.renewal]}
          role={props.renewal === "connecting" ? "status" : "alert"}
          data-testid="renewal-notice"
        >
          {t(`renewal.${props.renewal}`)}
        </p>
      ) : null}
      <FocusedAlert error={alert.error} />
      {shown.length === 0 ? <p className="muted">{t("none")}</p> : null}
      {sealed && shown.length > 0 && key.kind === "locked" && !passphraseOpens(key.installed) ? (
        <div className="stack account-unlock">
          <p className="hint">{t("lockedNamesPasskey")}</p>
          <p>
            <button
              type="button"
              className="button-secondary"
              disabled={busy}
              onClick={() => void onPasskeyUnlock()}
            >
              {t("unlock")}
            </button>
          </p>
        </div>
      ) : null}
      {sealed && shown.length > 0 && key.kind === "locked" && passphraseOpens(key.installed) ? (
        <form className="stack account-unlock" onSubmit={(event) => void onUnlock(event)}>
          <p className="hint">{t("lockedNames")}</p>
          <label className="label" htmlFor="account-passphrase">
            {t("passphrase")}
          </label>
          <input
            id="account-passphrase"
            name="passphrase"
            type="password"
            className="field"
            autoComplete="current-password"
            required
          />
          <button type="submit" className="button-secondary" disabled={busy}>
            {t("unlock")}
          </button>
        </form>
      ) : null}
      {sealed && shown.length > 0 && key.kind === "missing" ? (
        <p className="hint">{t("noKeyHere")}</p>
      ) : null}
      <ul className="list-plain stack account-list">
        {shown.map((bank) => {
          const accessEnded =
            bank.partnerAccess === "ended" ||
            (bank.partnerId !== null && ended.has(bank.partnerId));
          // An active consent that no partner reads any more is not "Active" to the person.
          const badge =
            accessEnded && bank.status === "Active"
              ? { tone: "badge-warn", text: t("status.accessEnded") }
              : { tone: STATUS_BADGE[bank.status], text: t(`status.${bank.status}`) };
          return (
            <li key={bank.id} className="account-item" data-testid="bank-item">
              <div className="account-item-head">
                <h3>{bank.bank}</h3>
                <span className={`badge ${badge.tone}`} data-testid="bank-status">
                  {badge.text}
                </span>
              </div>
              <p className="muted account-meta">
                <span>{t("country", { country: bank.country })}</span>
                <span data-testid="bank-valid-until">
                  {bank.ended
                    ? t("endedOn", { date: bank.validUntil })
                    : t("validUntil", { date: bank.validUntil })}
                </span>
                {bank.endsInDays !== null ? (
                  <span className="account-ends-soon" data-testid="bank-ends-in">
                    {t("endsIn", { days: bank.endsInDays })}
                  </span>
                ) : null}
                {bank.partnerName ? (
                  <span>
                    {accessEnded
                      ? t("notShared", { partner: bank.partnerName })
                      : t("sharedWith", { partner: bank.partnerName })}
                  </span>
                ) : null}
              </p>
              <p className="account-meta">{t("accounts", { count: bank.accounts.length })}</p>
              <ul className="list-plain account-accounts">
                {bank.accounts.map((account, index) => (
                  <li key={account.id} data-testid="bank-account">
                    {names[account.id] ??
                      t("accountFallback", { number: index + 1, currency: account.currency })}
                  </li>
                ))}
              </ul>
              <div className="account-bank-actions">
                {bank.renewHref && confirming !== bank.id ? (
                  <a className="button-secondary" href={bank.renewHref} data-testid="bank-renew">
                    {t("renew")}
                    <span className="visually-hidden">: {bank.bank}</span>
                  </a>
                ) : null}
                <ConfirmAction
                  id={`remove-${bank.id}`}
                  open={confirming === bank.id}
                  busy={busy}
                  title={t("confirmTitle", { bank: bank.bank })}
                  body={t("confirmBody")}
                  confirmLabel={t("confirm")}
                  cancelLabel={t("cancel")}
                  actionLabel={t("remove")}
                  subject={bank.bank}
                  onOpen={() => setConfirming(bank.id)}
                  onCancel={() => setConfirming(null)}
                  onConfirm={() => void remove(bank)}
                />
              </div>
            </li>
          );
        })}
      </ul>
    </section>
  );
}
