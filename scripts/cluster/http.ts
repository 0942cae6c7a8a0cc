import { randomInt } from "node:crypto";
import type http from "node:http";
import { exchange } from "../lib/load-client";

/**
 * Plain HTTP for the cluster run. A request may leave from a loopback address
 * of its own (any of 127.0.0.0/8 on Linux): nginx then sees a distinct client
 * and forwards that address, as it would forward a real client's. Requests
 * sent to an instance directly carry the X-Forwarded-For the proxy would have
 * added, since the instances trust one proxy hop.
 */

export interface Answer {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
}

export interface Request {
  method?: string;
  headers?: Record<string, string>;
  body?: string;
  /** The source address (default: the system's choice, 127.0.0.1). */
  from?: string;
}

export function send(url: string, request: Request = {}): Promise<Answer> {
  const target = new URL(url);
  const body = request.body === undefined ? undefined : Buffer.from(request.body);
  return exchange(
    {
      hostname: target.hostname === "localhost" ? "127.0.0.1" : target.hostname,
      port: target.port,
      path: `${target.pathname}${target.search}`,
      method: request.method ?? "GET",
      // The Host a browser sends for this address.
      headers: {
        Host: target.host,
        ...request.headers,
        ...(body && { "Content-Length": String(body.length) }),
      },
      localAddress: request.from,
      agent: false,
      timeout: 60_000,
    },
    body,
    `no answer from ${url} in 60 s`,
  );
}

/** A random loopback address other than 127.0.0.1 (where the proxy's own requests come from). */
export function clientAddress(): string {
  return `127.${randomInt(1, 255)}.${randomInt(0, 256)}.${randomInt(2, 255)}`;
}

export const formBody = (fields: Record<string, string>) => new URLSearchParams(fields).toString();

export const FORM = { "Content-Type": "application/x-www-form-urlencoded" };

export function basicAuth(clientId: string, clientSecret: string): Record<string, string> {
  const pair = `${encodeURIComponent(clientId)}:${encodeURIComponent(clientSecret)}`;
  return { Authorization: `Basic ${Buffer.from(pair).toString("base64")}` };
}

/** Which instance answered a request through nginx (its `X-Upstream`), or "direct". */
export function upstreamOf(answer: Answer): string {
  return String(answer.headers["x-upstream"] ?? "direct");
}
