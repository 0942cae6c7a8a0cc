"use client";

import { useTranslations } from "next-intl";
import { useCallback, useEffect, useState } from "react";
import { useDateTime } from "@/app/_components/date-time";
import { BusyButton } from "../ui/busy-button";
import { useProblems } from "../ui/errors";
import { FormAlert } from "../ui/form-alert";
import type { Answer } from "../ui/request";
import type { Delivery, WebhooksApi } from "./transport";

/** While a delivery is still pending, the list is read again this often. */
const POLL_MS = 3_000;

const STATUS_BADGE: Record<Delivery["status"], string> = {
  delivered: "badge badge-success",
  pending: "badge badge-info",
  failed: "badge badge-warn",
};

/**
 * One endpoint's recent deliveries, newest first: the event, its state, the
 * last answer (status code and time taken, or why there was none), how many
 * attempts and when the next one is due, each with its attempts under
 * "Attempts" and a Replay button; above them, "Send test event".
 */
export function Deliveries(props: { api: WebhooksApi; endpointId: string; label: string }) {
  const t = useTranslations("Dashboard.webhooks");
  // Failure keys come from the delivery's stored reason, so they are looked up untyped.
  const untyped = t as unknown as (key: string) => string;
  const dateTime = useDateTime();
  const problemsOf = useProblems();
  const { api, endpointId } = props;
  const [deliveries, setDeliveries] = useState<Delivery[] | null>(null);
  const [busy, setBusy] = useState<string | null>(null);
  const [status, setStatus] = useState("");
  const [problems, setProblems] = useState<string[]>([]);

  /** Reads the list again; a refusal is said above it, and the rows shown stay. */
  const load = useCallback(
    () =>
      api.deliveries(endpointId).then((answer) => {
        if (answer.ok && Array.isArray(answer.body)) {
          setDeliveries(answer.body as unknown as Delivery[]);
          return;
        }
        setDeliveries((current) => current ?? []);
        setProblems(problemsOf("webhook", answer as unknown as Answer).general);
      }),
    // problemsOf is a fresh function per render; the list is read for the endpoint only.
    // eslint-disable-next-line react-hooks/exhaustive-deps
    [api, endpointId],
  );

  useEffect(() => {
    void load();
  }, [load]);

  const pending = deliveries?.some((delivery) => delivery.status === "pending") ?? false;
  useEffect(() => {
    if (!pending) return;
    const timer = setInterval(() => void load(), POLL_MS);
    return () => clearInterval(timer);
  }, [pending, load]);

  async function act(key: string, call: () => Promise<Answer>, done: string) {
    if (busy) return;
    setBusy(key);
    setStatus("");
    setProblems([]);
    const answer = await call();
    setBusy(null);
    if (!answer.ok) {
      setProblems(problemsOf("webhook", answer).general);
      return;
    }
    setStatus(done);
    await load();
  }

  const lastAnswer = (delivery: Delivery) => {
    if (delivery.responseCode !== null) return <code>{delivery.responseCode}</code>;
    if (delivery.error) return untyped(`failure.${failureKey(delivery.error)}`);
    return <span className="muted">{t("noAttemptYet")}</span>;
  };

  return (
    <section
      className="stack webhook-deliveries"
      aria-label={t("deliveriesOf", { url: props.label })}
    >
      <div className="webhook-deliveries-head">
        <h4 className="webhook-deliveries-title">{t("deliveries")}</h4>
        <div className="webhook-deliveries-actions">
          <BusyButton
            className="button-secondary button-small"
            busy={busy === "test"}
            busyLabel={t("sendingTest")}
            onClick={() => void act("test", () => api.sendTest(endpointId), t("testSent"))}
          >
            {t("sendTest")}
          </BusyButton>
          <button type="button" className="button-link" onClick={() => void load()}>
            {t("refresh")}
          </button>
        </div>
      </div>
      <FormAlert items={problems} />
      <p role="status" className="save-status" data-testid="webhook-delivery-status">
        {status}
      </p>
      {deliveries === null ? (
        <p className="muted small">{t("loading")}</p>
      ) : deliveries.length === 0 ? (
        <p className="muted webhook-empty">{t("deliveriesNone")}</p>
      ) : (
        <div className="table-scroll webhook-table-scroll">
          <table className="log-table webhook-table" data-testid="webhook-deliveries">
            <thead>
              <tr>
                <th scope="col">{t("columns.event")}</th>
                <th scope="col">{t("columns.status")}</th>
                <th scope="col">{t("columns.response")}</th>
                <th scope="col">{t("columns.latency")}</th>
                <th scope="col">{t("columns.attempts")}</th>
                <th scope="col">{t("columns.nextRetry")}</th>
                <th scope="col">
                  <span className="visually-hidden">{t("columns.actions")}</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {deliveries.map((delivery) => (
                <tr key={delivery.id} data-status={delivery.status}>
                  <th scope="row" data-label={t("columns.event")}>
                    <code className="webhook-type-name">{delivery.eventType}</code>
                    <span className="log-line small muted">{dateTime(delivery.createdAt)}</span>
                  </th>
                  <td data-label={t("columns.status")}>
                    <span className={STATUS_BADGE[delivery.status]}>
                      {t(`status.${delivery.status}`)}
                    </span>
                  </td>
                  <td data-label={t("columns.response")}>{lastAnswer(delivery)}</td>
                  <td data-label={t("columns.latency")}>
                    {delivery.latencyMs === null ? "–" : t("latency", { ms: delivery.latencyMs })}
                  </td>
                  <td data-label={t("columns.attempts")}>
                    {delivery.attemptLog.length > 0 ? (
                      <details className="webhook-attempts">
                        <summary>{delivery.attempts}</summary>
                        <ol className="webhook-attempt-list">
                          {delivery.attemptLog.map((attempt) => (
                            <li key={attempt.attempt}>
                              {dateTime(attempt.at)}
                              {" · "}
                              {attempt.responseCode !== null
                                ? attempt.responseCode
                                : untyped(`failure.${failureKey(attempt.error ?? "")}`)}
                              {attempt.latencyMs !== null
                                ? ` · ${t("latency", { ms: attempt.latencyMs })}`
                                : ""}
                            </li>
                          ))}
                        </ol>
                      </details>
                    ) : (
                      delivery.attempts
                    )}
                  </td>
                  <td data-label={t("columns.nextRetry")}>
                    {delivery.nextAttemptAt ? dateTime(delivery.nextAttemptAt) : "–"}
                  </td>
                  <td data-label={t("columns.actions")}>
                    <BusyButton
                      className="button-secondary button-small"
                      busy={busy === delivery.id}
                      busyLabel={t("replaying")}
                      aria-label={t("replayNamed", { event: delivery.eventType })}
                      onClick={() =>
                        void act(
                          delivery.id,
                          () => api.replay(endpointId, delivery.id),
                          t("replayed", { event: delivery.eventType }),
                        )
                      }
                    >
                      {t("replay")}
                    </BusyButton>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}

/** The message key for why an attempt got no answer (`lastError` of a delivery). */
function failureKey(error: string): string {
  return ["timeout", "address_refused", "connection", "redirect"].includes(error) ? error : "other";
}
