import { findSessionUser } from "../lib/auth/sessions";
import { db } from "../lib/db/client";
import { sessionCsrfToken } from "../lib/partners/owner-session";
import {
  createTestClient,
  createTestUser,
  signedInCookie,
  type TestClient,
} from "./oauth-fixtures";

export interface TestOwner {
  user: Awaited<ReturnType<typeof createTestUser>>;
  cookie: string;
  /** The session's CSRF token, as the dashboard sends it in X-CSRF-Token. */
  csrf: string;
  /** One client per owned partner. */
  clients: TestClient[];
  /** The first partner's id. */
  partnerId: string;
}

/** A signed-in person who owns no partner yet, with the session's CSRF token. */
export async function signedInPerson(): Promise<Omit<TestOwner, "clients" | "partnerId">> {
  const user = await createTestUser();
  const cookie = await signedInCookie(user.id);
  const session = await findSessionUser(cookie.slice(cookie.indexOf("=") + 1));
  return { user, cookie, csrf: sessionCsrfToken({ sessionId: session?.sessionId ?? "" }) };
}

/** A signed-in owner of `count` partners, each with one client. */
export async function ownerOf(count = 1): Promise<TestOwner> {
  const user = await createTestUser();
  const clients: TestClient[] = [];
  for (let i = 0; i < count; i += 1) {
    const client = await createTestClient();
    await db().partnerOwner.create({
      data: { partnerId: client.partnerId ?? "", userId: user.id },
    });
    clients.push(client);
  }
  const cookie = await signedInCookie(user.id);
  const session = await findSessionUser(cookie.slice(cookie.indexOf("=") + 1));
  return {
    user,
    cookie,
    csrf: sessionCsrfToken({ sessionId: session?.sessionId ?? "" }),
    clients,
    partnerId: clients[0]?.partnerId ?? "",
  };
}
