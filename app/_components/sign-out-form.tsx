import { getTranslations } from "next-intl/server";
import { signOutToken, type SignedInUser } from "@/lib/auth/sessions";
import { SIGN_OUT_PATH } from "@/lib/flow/sign-out";

/**
 * Who is signed in, with a button that signs out: a plain form post (works
 * without JavaScript) carrying the session's sign-out token. `text` replaces
 * the default "Signed in as …" line; `from` names a screen that needs its own
 * landing after signing out (the dashboard).
 */
export async function SignOutForm({
  user,
  text,
  button = "signOut",
  from,
}: {
  user: Pick<SignedInUser, "sessionId" | "email">;
  text?: string;
  button?: "signOut" | "notYou";
  from?: string;
}) {
  const t = await getTranslations("Session");
  return (
    <form method="post" action={SIGN_OUT_PATH} className="signed-in">
      <input type="hidden" name="csrf" value={signOutToken(user)} />
      {from ? <input type="hidden" name="from" value={from} /> : null}
      <span>{text ?? t("signedInAs", { email: user.email })}</span>{" "}
      <button type="submit" className="button-link">
        {t(button)}
      </button>
    </form>
  );
}
