"use client";

import { useTranslations } from "next-intl";
import { useState, type FormEvent } from "react";
import { openEnvelopeInBrowser } from "@/lib/keys/browser-envelope";
import { generateUserKey } from "@/lib/keys/browser-key";
import { announceChange } from "./changes";
import {
  downloadKeyFile,
  recipientKeyApi,
  refusedAnswer,
  type Challenge,
  type Installed,
} from "./recipient-key-requests";
import { useProblems } from "./ui/errors";
import type { Endpoint } from "./ui/request";

export type Step = "generate" | "challenge" | "install";

/**
 * The decryption key section's state: the installed key, the challenge for a
 * key made elsewhere, the step under way, and the step waiting for the
 * replacement to be confirmed. The install names the key the owner confirmed
 * replacing, so it never replaces another.
 */
export function useRecipientKey(endpoint: Endpoint, initial: Installed | null) {
  const t = useTranslations("Dashboard.recipientKey");
  const problemsOf = useProblems();
  const api = recipientKeyApi(endpoint);
  const [installed, setInstalled] = useState(initial);
  const [challenge, setChallenge] = useState<Challenge | null>(null);
  const [publicKey, setPublicKey] = useState("");
  const [answer, setAnswer] = useState("");
  const [problems, setProblems] = useState<string[]>([]);
  const [status, setStatus] = useState("");
  const [busy, setBusy] = useState<Step | null>(null);
  /** The action waiting for the replacement to be confirmed. */
  const [pending, setPending] = useState<Step | null>(null);
  /** The fingerprint the owner confirmed replacing (null: none was installed). */
  const [replaces, setReplaces] = useState<string | null>(null);

  async function run(step: Step, action: () => Promise<void>) {
    setBusy(step);
    setProblems([]);
    setStatus("");
    try {
      await action();
    } catch (cause) {
      setProblems(problemsOf("branding", refusedAnswer(cause)).general);
    } finally {
      setBusy(null);
      setPending(null);
    }
  }

  function done(fingerprint: string, installedAt: string, message: string) {
    setInstalled({ fingerprint, installedAt });
    setChallenge(null);
    setPublicKey("");
    setAnswer("");
    setStatus(message);
    announceChange();
  }

  /** Runs `step` now, or after the replacement confirmation when a key is installed. */
  function guarded(step: Step) {
    if (installed && step !== "install") setPending(step);
    else void perform(step, installed?.fingerprint ?? null);
  }

  function perform(step: Step, confirmedReplaces: string | null) {
    setReplaces(confirmedReplaces);
    if (step === "generate") {
      return run("generate", async () => {
        const pair = await generateUserKey();
        const issued = await api.challenge(pair.publicKey);
        // The key file is saved before the key is installed: an installed key
        // whose private half was never saved would seal users' data to nobody.
        const file = downloadKeyFile(pair, issued.fingerprint);
        const { nonce } = await openEnvelopeInBrowser<{ nonce: string }>(
          pair.privateKey,
          issued.envelope,
        );
        const result = await api.install({
          publicKey: pair.publicKey,
          challengeAnswer: nonce,
          replaces: confirmedReplaces,
        });
        done(
          result.fingerprint,
          result.installedAt,
          t("generated", { fingerprint: result.fingerprint, file }),
        );
      });
    }
    return run("challenge", async () => {
      setChallenge(await api.challenge(publicKey.trim()));
    });
  }

  const install = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    if (busy) return;
    void run("install", async () => {
      const result = await api.install({
        publicKey: publicKey.trim(),
        challengeAnswer: answer.trim(),
        replaces,
      });
      done(
        result.fingerprint,
        result.installedAt,
        t("installedNow", { fingerprint: result.fingerprint }),
      );
    });
  };

  return {
    installed,
    challenge,
    publicKey,
    setPublicKey,
    answer,
    setAnswer,
    problems,
    status,
    busy,
    pending,
    guarded,
    install,
    /** Runs the pending step, the replacement of the installed key now confirmed. */
    confirmReplace: () => {
      if (pending) void perform(pending, installed?.fingerprint ?? null);
    },
    cancelReplace: () => setPending(null),
  };
}
