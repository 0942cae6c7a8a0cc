import { gzipSync } from "node:zlib";
import { db } from "../../lib/db/client";
import { toS256Challenge } from "../../lib/oauth/pkce";
import {
  createTestUser,
  newVerifier,
  signedInCookie,
  type TestClient,
} from "../../test/oauth-fixtures";
import { forwardedFor, type HttpClient } from "../lib/load-client";

/**
 * JavaScript shipped to the browser per flow screen: every `<script src>` of
 * the screen's HTML fetched and counted (raw and gzip), plus the inline
 * scripts (the React Server Components payload), as a first visit would
 * download them. Scripts marked `nomodule` are left out: they are Next's
 * polyfills for browsers without ES modules, which every current browser
 * skips.
 */

export interface ScreenWeight {
  screen: string;
  status: number;
  files: number;
  rawBytes: number;
  gzipBytes: number;
  inlineBytes: number;
}

const SCREENS = [
  { screen: "/login", step: "login", signedIn: false },
  { screen: "/setup", step: "key_setup", signedIn: true },
  { screen: "/banks", step: "banks", signedIn: true },
  { screen: "/consent", step: "consent", signedIn: true },
  { screen: "/error", step: "login", signedIn: false },
] as const;

const cookieOf = (setCookie: string[] | undefined) =>
  (setCookie ?? []).map((cookie) => cookie.split(";")[0]).join("; ");

export async function screenWeights(http: HttpClient, client: TestClient): Promise<ScreenWeight[]> {
  const query = new URLSearchParams({
    client_id: client.clientId,
    redirect_uri: client.redirectUri,
    response_type: "code",
    state: "bench",
    code_challenge: toS256Challenge(newVerifier()),
    code_challenge_method: "S256",
  });
  const authorize = await http({ path: `/oauth/authorize?${query}`, headers: forwardedFor(7) });
  const flowCookie = cookieOf(authorize.headers["set-cookie"]);
  const flow = await db().flow.findFirstOrThrow({
    where: { clientId: client.clientId },
    orderBy: { createdAt: "desc" },
  });
  const user = await createTestUser();
  const sessionCookie = await signedInCookie(user.id);
  const files = new Map<string, Buffer>();

  const weights: ScreenWeight[] = [];
  for (const { screen, step, signedIn } of SCREENS) {
    await db().flow.update({
      where: { id: flow.id },
      data: { step, userId: signedIn ? user.id : null },
    });
    const cookie = signedIn ? `${flowCookie}; ${sessionCookie}` : flowCookie;
    const page = await http({ path: screen, headers: { Cookie: cookie, ...forwardedFor(7) } });
    weights.push({ screen, status: page.status, ...(await weighHtml(http, page.body, files)) });
  }
  return weights;
}

/** The scripts a modern browser loads for `html`; `files` caches what was fetched already. */
export async function weighHtml(
  http: HttpClient,
  html: string,
  files: Map<string, Buffer> = new Map(),
): Promise<Omit<ScreenWeight, "screen" | "status">> {
  const tags = [...html.matchAll(/<script\b([^>]*)>([\s\S]*?)<\/script>/g)];
  const sources = new Set<string>();
  let inlineBytes = 0;
  for (const [, attributes = "", content = ""] of tags) {
    if (/\snomodule\b/i.test(attributes)) continue;
    const source = /\ssrc="([^"]+)"/.exec(attributes)?.[1];
    if (source) sources.add(source.replace(/&amp;/g, "&"));
    else inlineBytes += Buffer.byteLength(content);
  }
  let rawBytes = 0;
  let gzipBytes = 0;
  for (const path of sources) {
    let bytes = files.get(path);
    if (!bytes) {
      bytes = Buffer.from((await http({ path })).body);
      files.set(path, bytes);
    }
    rawBytes += bytes.length;
    gzipBytes += gzipSync(bytes).length;
  }
  return { files: sources.size, rawBytes, gzipBytes, inlineBytes };
}
