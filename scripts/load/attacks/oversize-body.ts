import http from "node:http";
import { performance } from "node:perf_hooks";
import { db } from "../../../lib/db/client";
import { hashApiKey } from "../../../lib/keys/api-keys";
import { hashCode } from "../../../lib/oauth/codes";
import { basicAuthorization, type TestClient } from "../../../test/oauth-fixtures";

/**
 * The "oversize body" attack of the load and fault run: bodies of 11 MB and
 * 50 MB, declared by Content-Length and streamed chunked, to endpoints where
 * a handler acting on the first part of the body would leave a trace (a code
 * consumed, a key revoked, an account synced, a sign-in mail sent). Every
 * answer must be 413, and no trace may appear. Prints each status and the
 * time from the first byte sent to the answer.
 */

const MB = 1024 * 1024;
const FILLER = Buffer.alloc(64 * 1024, "a");

export type Framing = "content-length" | "chunked";

export interface OversizeRequest {
  path: string;
  headers?: Record<string, string>;
  /** The meaningful start of the body; filler follows up to `totalBytes`. */
  prefix: string;
  totalBytes: number;
  framing: Framing;
}

export interface OversizeAnswer {
  status: number;
  contentType: string;
  body: string;
  /** From the first byte sent to the answer's head. */
  ms: number;
  /** How much of the body was sent before the answer came. */
  sentBytes: number;
  /** The service closed the connection after answering. */
  closed: boolean;
}

/**
 * Sends one oversize body, stopping as soon as an answer arrives (as a real
 * client does), and resolves with that answer.
 */
export function sendOversize(origin: string, request: OversizeRequest): Promise<OversizeAnswer> {
  const base = new URL(origin);
  return new Promise((resolve, reject) => {
    const started = performance.now();
    let sentBytes = 0;
    let answered = false;
    const outgoing = http.request({
      agent: false,
      hostname: base.hostname,
      port: base.port,
      method: "POST",
      path: request.path,
      headers: {
        ...request.headers,
        ...(request.framing === "content-length"
          ? { "Content-Length": String(request.totalBytes) }
          : { "Transfer-Encoding": "chunked" }),
      },
      timeout: 30_000,
    });
    outgoing.on("response", (response) => {
      answered = true;
      const ms = performance.now() - started;
      const chunks: Buffer[] = [];
      response.on("data", (chunk: Buffer) => chunks.push(chunk));
      response.on("end", () => {
        const closed = response.headers.connection === "close";
        outgoing.destroy();
        resolve({
          status: response.statusCode ?? 0,
          contentType: String(response.headers["content-type"] ?? ""),
          body: Buffer.concat(chunks).toString("utf8"),
          ms,
          sentBytes,
          closed,
        });
      });
      response.on("error", reject);
    });
    outgoing.on("timeout", () => outgoing.destroy(new Error("no answer within 30 s")));
    outgoing.on("error", (error) => {
      if (!answered) reject(error);
    });
    const write = (bytes: Buffer) => {
      sentBytes += bytes.length;
      return outgoing.write(bytes);
    };
    const pump = () => {
      while (!answered && !outgoing.destroyed && sentBytes < request.totalBytes) {
        const room = request.totalBytes - sentBytes;
        if (!write(room < FILLER.length ? FILLER.subarray(0, room) : FILLER)) {
          outgoing.once("drain", pump);
          return;
        }
      }
      if (!answered && !outgoing.destroyed) outgoing.end();
    };
    const prefix = Buffer.from(request.prefix);
    if (write(prefix.subarray(0, request.totalBytes))) pump();
    else outgoing.once("drain", pump);
  });
}

export interface OversizeTargets {
  origin: string;
  client: TestClient;
  /** A valid, unused code of `client` and its verifier. */
  code: { code: string; verifier: string };
  /** A live API key of `client`, and one of its accounts with that account's uid. */
  key: string;
  accountId: string;
  uid: string;
}

interface Case {
  label: string;
  request: Omit<OversizeRequest, "totalBytes" | "framing">;
}

function cases(targets: OversizeTargets, email: string): Case[] {
  const basic = {
    Authorization: basicAuthorization(targets.client.clientId, targets.client.clientSecret),
  };
  const formHeaders = { "Content-Type": "application/x-www-form-urlencoded" };
  const jsonHeaders = { "Content-Type": "application/json", "X-Api-Key": targets.key };
  // Filler after a complete form is one more parameter; after JSON, whitespace.
  return [
    {
      label: "token exchange",
      request: {
        path: "/oauth/token",
        headers: { ...formHeaders, ...basic },
        prefix: `grant_type=authorization_code&code=${targets.code.code}&code_verifier=${targets.code.verifier}&pad=`,
      },
    },
    {
      label: "revoke",
      request: {
        path: "/oauth/revoke",
        headers: { ...formHeaders, ...basic },
        prefix: `token=${targets.key}&token_type_hint=access_token&pad=`,
      },
    },
    {
      label: "account sync",
      request: {
        path: `/api/accounts/${targets.accountId}/sync`,
        headers: jsonHeaders,
        prefix: `${JSON.stringify({ uid: targets.uid })}\n`,
      },
    },
    {
      label: "sign-in mail",
      request: {
        path: "/login/request",
        headers: { ...formHeaders, Origin: targets.origin },
        prefix: `email=${encodeURIComponent(email)}&pad=`,
      },
    },
    { label: "page", request: { path: "/", headers: formHeaders, prefix: "pad=" } },
  ];
}

export interface AttackReport {
  lines: string[];
  failures: string[];
}

export async function oversizeBodyAttack(targets: OversizeTargets): Promise<AttackReport> {
  const email = `oversize-${Date.now()}@example.com`;
  const lines = [
    "  case             framing          size   status   ms    sent before the answer",
  ];
  const failures: string[] = [];
  const before = await traces(targets, email);
  for (const size of [11 * MB, 50 * MB]) {
    for (const framing of ["content-length", "chunked"] as const) {
      for (const { label, request } of cases(targets, email)) {
        const name = `${label}, ${size / MB} MB ${framing}`;
        const answer = await sendOversize(targets.origin, {
          ...request,
          totalBytes: size,
          framing,
        }).catch((error: Error) => {
          failures.push(`oversize body, ${name}: no answer (${error.message})`);
          return null;
        });
        if (!answer) continue;
        lines.push(
          `  ${label.padEnd(16)} ${framing.padEnd(14)} ${`${size / MB} MB`.padStart(6)} ${String(answer.status).padStart(7)} ${answer.ms.toFixed(1).padStart(6)}   ${(answer.sentBytes / MB).toFixed(2)} MB`,
        );
        if (answer.status !== 413)
          failures.push(`oversize body, ${name}: answered ${answer.status}`);
        if (!answer.closed) failures.push(`oversize body, ${name}: the connection stays open`);
      }
    }
  }
  const after = await traces(targets, email);
  for (const [what, value] of Object.entries(after)) {
    const was = before[what as keyof typeof before];
    lines.push(`  ${what}: ${String(was)} before, ${String(value)} after`);
    if (value !== was) failures.push(`oversize body: a handler acted (${what} changed)`);
  }
  return { lines, failures };
}

/** What a handler acting on a body's first part would change. */
async function traces(targets: OversizeTargets, email: string) {
  const code = await db().authorizationCode.findUniqueOrThrow({
    where: { codeHash: hashCode(targets.code.code) },
    select: { consumedAt: true },
  });
  const key = await db().apiKey.findUniqueOrThrow({
    where: { keyHash: hashApiKey(targets.key) },
    select: { revokedAt: true },
  });
  const account = await db().account.findUniqueOrThrow({
    where: { id: targets.accountId },
    select: { connection: { select: { lastSyncedAt: true } } },
  });
  return {
    "code consumed": code.consumedAt !== null,
    "key revoked": key.revokedAt !== null,
    "account last synced": account.connection.lastSyncedAt?.toISOString() ?? "never",
    "sign-in mails": await db().outboxMessage.count({ where: { to: email } }),
  };
}
