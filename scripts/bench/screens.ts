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
 * download them.
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
    const sources = [...page.body.matchAll(/<script[^>]*\ssrc="([^"]+)"/g)].map(
      (match) => match[1] ?? "",
    );
    const inline = [...page.body.matchAll(/<script(?![^>]*\ssrc=)[^>]*>([\s\S]*?)<\/script>/g)];
    let rawBytes = 0;
    let gzipBytes = 0;
    for (const source of new Set(sources)) {
      const path = source.replace(/&amp;/g, "&");
      let bytes = files.get(path);
      if (!bytes) {
        bytes = Buffer.from((await http({ path })).body);
        files.set(path, bytes);
      }
      rawBytes += bytes.length;
      gzipBytes += gzipSync(bytes).length;
    }
    weights.push({
      screen,
      status: page.status,
      files: new Set(sources).size,
      rawBytes,
      gzipBytes,
      inlineBytes: inline.reduce((total, match) => total + Buffer.byteLength(match[1] ?? ""), 0),
    });
  }
  return weights;
}
