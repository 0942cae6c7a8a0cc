import type { ClientValues } from "./client-form";
import { send, type Answer, type Endpoint } from "./ui/request";

/**
 * The clients section's calls to /api/partner/clients: each answers the
 * request's outcome (never throws), so the screen can say what happened.
 */

export type Client = {
  clientId: string;
  name: string;
  redirectUris: string[];
  createdAt: string;
  previousSecretExpiresAt: string | null;
};

export type Issued = {
  clientId: string;
  clientSecret: string;
  previousSecretExpiresAt?: string | null;
  /** A new client's answer also names it and its redirect URIs. */
  name?: string;
  redirectUris?: string[];
};

/** A secret to show once, at the place of the action that made it. */
export type Reveal = { at: string; name: string; rotated: boolean } & Issued;

const BASE = "/api/partner/clients";
const at = (clientId: string, tail = "") => `${BASE}/${encodeURIComponent(clientId)}${tail}`;

export function clientsApi(endpoint: Endpoint) {
  return {
    list: () => send<Client[]>(endpoint, BASE, { method: "GET" }),
    create: (values: ClientValues) =>
      send<Issued>(endpoint, BASE, { method: "POST", json: values }),
    update: (clientId: string, values: ClientValues): Promise<Answer> =>
      send(endpoint, at(clientId), { method: "PATCH", json: values }),
    rotate: (clientId: string) =>
      send<Omit<Issued, "clientId">>(endpoint, at(clientId, "/rotate-secret"), { method: "POST" }),
    remove: (clientId: string): Promise<Answer> =>
      send(endpoint, at(clientId), { method: "DELETE" }),
  };
}

/** The list from a read, or null when the answer is not one. */
export function listedClients(answer: Answer<Client[]>): Client[] | null {
  return answer.ok && Array.isArray(answer.body) ? (answer.body as Client[]) : null;
}

/** A new client as listed at once from its creation's answer (the list is read again behind it). */
export function createdClient(issued: Issued, values: ClientValues): Client {
  return {
    clientId: issued.clientId,
    name: issued.name ?? values.name.trim(),
    redirectUris: issued.redirectUris ?? values.redirectUris,
    createdAt: new Date().toISOString(),
    previousSecretExpiresAt: null,
  };
}

/** A new client's secret, shown below the form that made it. */
export function createdReveal(issued: Issued, client: Client): Reveal {
  return {
    at: "new",
    name: client.name,
    rotated: false,
    clientId: issued.clientId,
    clientSecret: issued.clientSecret,
  };
}

/** A rotated secret, shown in the client's own card. */
export function rotatedReveal(client: Client, issued: Omit<Issued, "clientId">): Reveal {
  return {
    at: client.clientId,
    name: client.name,
    rotated: true,
    clientId: client.clientId,
    ...issued,
  };
}
