import { NextIntlClientProvider } from "next-intl";
import { getMessages } from "next-intl/server";
import type { ReactNode } from "react";
import type { Messages } from "./messages";

export type Namespace = keyof Messages;

/** The catalogue's namespaces `names`, nothing else. */
export function pickNamespaces(messages: Messages, names: readonly Namespace[]): Partial<Messages> {
  return Object.fromEntries(names.map((name) => [name, messages[name]]));
}

/**
 * Translations for the client components inside: only the namespaces they
 * use are sent to the browser. Most screens translate on the server only and
 * send none; the root layout provides no messages, so a client component
 * outside a ClientMessages fails loudly rather than shipping every catalogue.
 */
export async function ClientMessages({
  namespaces,
  children,
}: {
  namespaces: readonly Namespace[];
  children: ReactNode;
}) {
  const messages = (await getMessages()) as Messages;
  return (
    <NextIntlClientProvider messages={pickNamespaces(messages, namespaces)}>
      {children}
    </NextIntlClientProvider>
  );
}
