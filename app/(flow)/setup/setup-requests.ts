/**
 * The setup screen's requests: register the public key, or replace it when
 * starting over. Answers where the flow goes next, or why it did not work.
 */
export type KeyAnswer = { ok: true; next: string } | { ok: false; conflict: boolean };

/** The flow's start-over, or the same from the "My access" page (/account). */
export type StartOverPath = "/setup/start-over" | "/account/key/start-over";

export async function postKey(
  path: "/setup/key" | StartOverPath,
  body: Record<string, string | boolean>,
): Promise<KeyAnswer> {
  let response: Response;
  try {
    response = await fetch(path, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify(body),
    });
  } catch {
    return { ok: false, conflict: false };
  }
  if (!response.ok) {
    const refusal = (await response.json().catch(() => ({}))) as { location?: unknown };
    // An ended flow, an older tab or another step: the server names the way
    // forward, and the screen stays busy while the browser goes there.
    if (typeof refusal.location === "string" && refusal.location.startsWith("/")) {
      window.location.assign(refusal.location);
      return new Promise<KeyAnswer>(() => {});
    }
    return { ok: false, conflict: response.status === 409 };
  }
  return { ok: true, next: ((await response.json()) as { next: string }).next };
}

/** Starts a download of `text` as `filename`, as a click on a download link would. */
export function downloadText(text: string, filename: string): void {
  const link = document.createElement("a");
  link.href = dataUrl(text);
  link.download = filename;
  document.body.append(link);
  link.click();
  link.remove();
}

export const dataUrl = (text: string) =>
  `data:application/json;charset=utf-8,${encodeURIComponent(text)}`;

export const BACKUP_FILENAME = "bank-connect-key-backup.json";
export const DEVELOPER_FILENAME = "bank-connect-key-UNENCRYPTED.json";

/** Registers a key that a passkey holds: no backup file on that path. */
export function postPasskeyHeldKey(csrf: string, publicKey: string): Promise<KeyAnswer> {
  return postKey("/setup/key", { csrf, publicKey, backup: false });
}
