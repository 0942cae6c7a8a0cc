/**
 * The "My access" actions, posted as JSON with the page's CSRF token. The
 * answer's `error` code (docs/account.md) decides what the page says; an
 * answer that names a `location` (a session to re-confirm) is followed.
 */
export type ActionAnswer =
  { ok: true; body: Record<string, unknown> } | { ok: false; error: string };

export function postAction(
  path:
    | "/account/access/end"
    | "/account/banks/remove"
    | "/account/delete"
    | "/account/key/backup-saved",
  body: Record<string, unknown>,
): Promise<ActionAnswer> {
  return sendAction("POST", path, body);
}

/** The same for the other methods: removing a passkey, giving one the key. */
export async function sendAction(
  method: "POST" | "PUT" | "DELETE",
  path: string,
  body: Record<string, unknown>,
): Promise<ActionAnswer> {
  try {
    const response = await fetch(path, {
      method,
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify(body),
    });
    const answer = (await response.json().catch(() => ({}))) as Record<string, unknown>;
    if (response.ok) return { ok: true, body: answer };
    // A stale session signs in again first (docs/sessions.md); the page stays busy meanwhile.
    if (typeof answer.location === "string" && answer.location.startsWith("/")) {
      window.location.assign(answer.location);
      return new Promise<ActionAnswer>(() => {});
    }
    return { ok: false, error: typeof answer.error === "string" ? answer.error : "failed" };
  } catch {
    return { ok: false, error: "failed" };
  }
}
