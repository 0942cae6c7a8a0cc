"use client";

import { useTranslations } from "next-intl";
import { useMemo, useState } from "react";
import { useDateTime } from "@/app/_components/date-time";
import { announceChange } from "../changes";
import { ConfirmDialog } from "../ui/confirm-dialog";
import { useProblems } from "../ui/errors";
import { FormAlert } from "../ui/form-alert";
import type { Answer } from "../ui/request";
import { SecretBox } from "../ui/secret-box";
import { EndpointForm } from "./endpoint-form";
import { EndpointItem } from "./endpoint-item";
import { webhooksApi, type EndpointValues, type Rotated, type WebhookEndpoint } from "./transport";
import "./webhooks.css";

/** A signing secret to show once, at the place of the action that made it. */
type Reveal = { at: string; url: string; secret: string; rotated: boolean; until: string | null };
type Confirm = { kind: "rotate" | "delete"; endpoint: WebhookEndpoint };

/**
 * The partner's webhook endpoints: add one (its signing secret shown once
 * right below, with a copy button), edit, enable or disable, rotate the
 * secret and delete, each lasting change behind a confirmation; and per
 * endpoint its recent deliveries with "Send test event" and "Replay".
 */
export function WebhooksPanel(props: {
  partnerId: string;
  csrf: string;
  initial: WebhookEndpoint[];
}) {
  const t = useTranslations("Dashboard.webhooks");
  const dateTime = useDateTime();
  const problemsOf = useProblems();
  const api = useMemo(
    () => webhooksApi({ partnerId: props.partnerId, csrf: props.csrf }),
    [props.partnerId, props.csrf],
  );
  const [endpoints, setEndpoints] = useState(props.initial);
  const [reveal, setReveal] = useState<Reveal | null>(null);
  const [confirm, setConfirm] = useState<Confirm | null>(null);
  const [busy, setBusy] = useState(false);
  const [status, setStatus] = useState("");
  const [actionProblems, setActionProblems] = useState<string[]>([]);

  async function reload() {
    announceChange();
    const answer = await api.list();
    if (answer.ok && Array.isArray(answer.body)) {
      setEndpoints(answer.body as unknown as WebhookEndpoint[]);
    }
  }

  async function create(values: EndpointValues): Promise<Answer> {
    const answer = await api.create(values);
    if (answer.ok) {
      const { secret, ...created } = answer.body;
      setEndpoints((current) => [...current.filter((one) => one.id !== created.id), created]);
      // Shown in the new endpoint's own card, where its deliveries will be.
      setReveal({ at: created.id, url: created.url, secret, rotated: false, until: null });
      setStatus("");
      setActionProblems([]);
      void reload();
    }
    return answer as unknown as Answer;
  }

  async function update(
    id: string,
    changes: Partial<EndpointValues> & { enabled?: boolean },
  ): Promise<Answer> {
    setActionProblems([]);
    const answer = await api.update(id, changes);
    if (answer.ok) {
      const updated = answer.body;
      setEndpoints((current) => current.map((one) => (one.id === id ? updated : one)));
      void reload();
    } else if (changes.enabled !== undefined) {
      setActionProblems(problemsOf("webhook", answer as unknown as Answer).general);
    }
    return answer as unknown as Answer;
  }

  async function confirmed() {
    if (!confirm) return;
    const { kind, endpoint } = confirm;
    setBusy(true);
    setActionProblems([]);
    const answer =
      kind === "rotate" ? await api.rotate(endpoint.id) : await api.remove(endpoint.id);
    setBusy(false);
    setConfirm(null);
    if (!answer.ok) {
      setActionProblems(problemsOf("webhook", answer).general);
      return;
    }
    if (kind === "rotate") {
      const rotated = answer.body as unknown as Rotated;
      setReveal({
        at: endpoint.id,
        url: endpoint.url,
        secret: rotated.secret,
        rotated: true,
        until: rotated.previousSecretExpiresAt,
      });
    } else {
      if (reveal?.at === endpoint.id) setReveal(null);
      setStatus(t("deleted", { url: endpoint.url }));
    }
    await reload();
  }

  const secretBox = (at: string) =>
    reveal && reveal.at === at ? (
      <SecretBox
        title={reveal.rotated ? t("rotatedTitle", { url: reveal.url }) : t("secretTitle")}
        items={[
          {
            id: `${at}-webhook-secret`,
            label: t("secret"),
            value: reveal.secret,
            testId: "webhook-secret",
          },
        ]}
        onDone={() => setReveal(null)}
      >
        <p className="small">{t("secretUse")}</p>
        {reveal.until ? (
          <p className="small">{t("previousValidUntil", { date: dateTime(reveal.until) })}</p>
        ) : null}
      </SecretBox>
    ) : null;

  return (
    <section id="webhooks" className="card stack" aria-labelledby="webhooks-title">
      <h2 id="webhooks-title">{t("title")}</h2>
      <p className="muted">
        {t("intro")} <a href="/docs/events">{t("docsLink")}</a>
      </p>
      <FormAlert items={actionProblems} />
      <p role="status" className="save-status" data-testid="webhooks-status">
        {status}
      </p>
      {endpoints.length === 0 ? (
        <div className="webhook-empty-state" data-testid="webhooks-empty">
          <p className="webhook-empty-title">{t("noneTitle")}</p>
          <p className="muted small">{t("none")}</p>
        </div>
      ) : null}
      {endpoints.map((endpoint) => (
        <EndpointItem
          key={endpoint.id}
          api={api}
          endpoint={endpoint}
          secret={secretBox(endpoint.id)}
          onUpdate={(changes) => update(endpoint.id, changes)}
          onRotate={() => setConfirm({ kind: "rotate", endpoint })}
          onDelete={() => setConfirm({ kind: "delete", endpoint })}
        />
      ))}
      <div className="client stack">
        <h3 id="new-webhook-title">{t("newTitle")}</h3>
        <EndpointForm
          prefix="new-webhook"
          initial={null}
          submitLabel={t("add")}
          busyLabel={t("adding")}
          resetAfter
          onSubmit={create}
        />
      </div>
      <ConfirmDialog
        open={confirm !== null}
        title={
          confirm?.kind === "delete"
            ? t("deleteTitle", { url: confirm.endpoint.url })
            : t("rotateTitle", { url: confirm?.endpoint.url ?? "" })
        }
        confirmLabel={confirm?.kind === "delete" ? t("delete") : t("rotate")}
        busyLabel={confirm?.kind === "delete" ? t("deleting") : t("rotating")}
        busy={busy}
        danger={confirm?.kind === "delete"}
        onConfirm={() => void confirmed()}
        onClose={() => setConfirm(null)}
      >
        <p>{confirm?.kind === "delete" ? t("deleteBody") : t("rotateBody")}</p>
      </ConfirmDialog>
    </section>
  );
}
