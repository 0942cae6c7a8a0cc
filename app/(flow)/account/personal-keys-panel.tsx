import { getLocale } from "next-intl/server";
import { accountCsrfToken } from "@/lib/account/session";
import type { SignedInUser } from "@/lib/auth/sessions";
import { ClientMessages } from "@/lib/i18n/client-messages";
import { COMMAND_LINE_CLIENT, listPersonalKeys } from "@/lib/oauth/personal-keys";
import { PersonalKeysList } from "./personal-keys-list";

/**
 * "Your own keys" on My access (docs/own-data.md): the person's personal
 * keys, the command-line client's and those made by hand, each with when it
 * was made, last used and expires, and Revoke; and making a key by hand for
 * an integration, its value shown once.
 */
export async function PersonalKeysPanel({
  user,
  hasKey,
}: {
  user: Pick<SignedInUser, "userId" | "sessionId">;
  /** The person has set up their key: a personal key reads data sealed to it. */
  hasKey: boolean;
}) {
  const locale = await getLocale();
  // Dates only, in UTC: the same text on the server and in the browser.
  const date = new Intl.DateTimeFormat(locale, { dateStyle: "medium", timeZone: "UTC" });
  const day = (iso: string) => date.format(new Date(iso));
  const keys = await listPersonalKeys(user.userId);
  return (
    <ClientMessages namespaces={["PersonalKeys"]}>
      <PersonalKeysList
        csrf={{
          create: accountCsrfToken(user, "create-key"),
          revoke: accountCsrfToken(user, "revoke-key"),
        }}
        hasKey={hasKey}
        keys={keys.map((key) => ({
          id: key.id,
          name: key.name,
          commandLine: key.clientId === COMMAND_LINE_CLIENT.id,
          clientName: key.clientName,
          prefix: key.prefix,
          created: day(key.createdAt),
          expires: day(key.expiresAt),
          lastUsed: key.lastUsedAt ? day(key.lastUsedAt) : null,
        }))}
      />
    </ClientMessages>
  );
}
