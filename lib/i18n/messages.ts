import type { Locale } from "./locales";
import type en from "../../messages/en.json";

/** English is the source and the type source (docs/architecture.md#english-messages-are-the-source). */
export type Messages = typeof en;

export async function loadMessages(locale: Locale): Promise<Messages> {
  const loaded = (await import(`../../messages/${locale}.json`, { with: { type: "json" } })) as {
    default: Messages;
  };
  return loaded.default;
}
