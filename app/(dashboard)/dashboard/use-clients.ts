"use client";

import { useTranslations } from "next-intl";
import { useState } from "react";
import { announceChange } from "./changes";
import type { ClientValues } from "./client-form";
import {
  clientsApi,
  createdClient,
  createdReveal,
  listedClients,
  rotatedReveal,
  type Client,
  type Issued,
  type Reveal,
} from "./clients-requests";
import { useProblems } from "./ui/errors";
import type { Answer, Endpoint } from "./ui/request";

export type ClientAction = { kind: "rotate" | "delete"; client: Client };

/**
 * The clients section's state: the list, the secret shown once, the action
 * waiting for its confirmation, and what the last action said.
 */
export function useClients(endpoint: Endpoint, initial: Client[]) {
  const t = useTranslations("Dashboard.clients");
  const problemsOf = useProblems();
  const api = clientsApi(endpoint);
  const [clients, setClients] = useState(initial);
  const [reveal, setReveal] = useState<Reveal | null>(null);
  const [confirm, setConfirm] = useState<ClientAction | null>(null);
  const [busy, setBusy] = useState(false);
  const [status, setStatus] = useState("");
  const [actionProblems, setActionProblems] = useState<string[]>([]);

  async function reload() {
    announceChange();
    const listed = listedClients(await api.list());
    if (listed) setClients(listed);
  }

  async function create(values: ClientValues): Promise<Answer> {
    const answer = await api.create(values);
    if (answer.ok) {
      // The new client is listed at once, from the answer; the list is read again behind it.
      const created = createdClient(answer.body, values);
      setClients((current) => [
        ...current.filter((client) => client.clientId !== created.clientId),
        created,
      ]);
      setReveal(createdReveal(answer.body, created));
      setStatus("");
      setActionProblems([]);
      void reload();
    }
    return answer;
  }

  async function update(clientId: string, values: ClientValues): Promise<Answer> {
    const answer = await api.update(clientId, values);
    if (answer.ok) await reload();
    return answer;
  }

  async function confirmed() {
    if (!confirm) return;
    const { kind, client } = confirm;
    setBusy(true);
    setActionProblems([]);
    const answer =
      kind === "rotate" ? await api.rotate(client.clientId) : await api.remove(client.clientId);
    setBusy(false);
    setConfirm(null);
    if (!answer.ok) {
      setActionProblems(problemsOf("client", answer as Answer).general);
      return;
    }
    if (kind === "rotate") {
      setReveal(rotatedReveal(client, answer.body as unknown as Omit<Issued, "clientId">));
    } else {
      if (reveal?.at === client.clientId) setReveal(null);
      setStatus(t("deleted", { name: client.name }));
    }
    await reload();
  }

  return {
    clients,
    reveal,
    confirm,
    busy,
    status,
    actionProblems,
    create,
    update,
    confirmed,
    ask: (action: ClientAction) => setConfirm(action),
    cancel: () => setConfirm(null),
    dismiss: () => setReveal(null),
  };
}
