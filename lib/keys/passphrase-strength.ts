import { ZxcvbnFactory, type FeedbackType } from "@zxcvbn-ts/core";
import { adjacencyGraphs, dictionary as commonDictionary } from "@zxcvbn-ts/language-common";
import { dictionary as englishDictionary } from "@zxcvbn-ts/language-en";

/**
 * How hard a backup passphrase is to guess (docs/key-model.md), estimated in
 * the browser with zxcvbn-ts: the passphrase never leaves the page. The
 * estimator knows the common passwords, keyboard patterns, English words and
 * names, the words and names of the screen's language where a dictionary of
 * it exists, and what the person typed elsewhere (their email address, the
 * app's name). Its own feedback is English, so only its keys are used: the
 * screen says them in its own language. This module is large (the
 * dictionaries): screens load it with import() when it is needed.
 */

export type PassphraseScore = 0 | 1 | 2 | 3 | 4;

/** The lowest score a backup passphrase may have (zxcvbn: about 10^8 guesses). */
export const MIN_SCORE: PassphraseScore = 3;

/** Why a passphrase is easy to guess, in the screen's words. */
export type PassphraseWarning =
  | "keyboard"
  | "repeat"
  | "sequence"
  | "dates"
  | "common"
  | "similarToCommon"
  | "word"
  | "names"
  | "personal";

/** What would not help much, said when it was tried. */
export type PassphraseHint = "capitals" | "l33t" | "reversed";

export interface PassphraseStrength {
  score: PassphraseScore;
  /** Strong enough to protect the backup (score ≥ MIN_SCORE). */
  strong: boolean;
  warning: PassphraseWarning | null;
  hints: PassphraseHint[];
}

const WARNINGS: Record<string, PassphraseWarning> = {
  straightRow: "keyboard",
  keyPattern: "keyboard",
  simpleRepeat: "repeat",
  extendedRepeat: "repeat",
  sequences: "sequence",
  recentYears: "dates",
  dates: "dates",
  topTen: "common",
  topHundred: "common",
  common: "common",
  pwned: "common",
  similarToCommon: "similarToCommon",
  wordByItself: "word",
  namesByThemselves: "names",
  commonNames: "names",
  userInputs: "personal",
};

const HINTS: Record<string, PassphraseHint> = {
  capitalization: "capitals",
  allUppercase: "capitals",
  l33t: "l33t",
  reverseWords: "reversed",
};

type Dictionary = Record<string, string[]>;

/** The dictionaries of a screen language, where zxcvbn-ts has one (English is always used). */
const LANGUAGE_DICTIONARIES: Record<string, () => Promise<{ dictionary: Dictionary }>> = {
  de: () => import("@zxcvbn-ts/language-de"),
  es: () => import("@zxcvbn-ts/language-es-es"),
  fi: () => import("@zxcvbn-ts/language-fi"),
  fr: () => import("@zxcvbn-ts/language-fr"),
  it: () => import("@zxcvbn-ts/language-it"),
  nl: () => import("@zxcvbn-ts/language-nl-be"),
  pl: () => import("@zxcvbn-ts/language-pl"),
  pt: () => import("@zxcvbn-ts/language-pt-br"),
};

/** Names each list by its language too, so two languages' "commonWords" stay apart. */
function byLanguage(dictionary: Dictionary, language: string): Dictionary {
  return Object.fromEntries(
    Object.entries(dictionary).map(([name, words]) => [
      name.endsWith(`-${language}`) ? name : `${name}-${language}`,
      words,
    ]),
  );
}

const estimators = new Map<string, Promise<ZxcvbnFactory>>();

function estimatorFor(locale: string): Promise<ZxcvbnFactory> {
  let estimator = estimators.get(locale);
  if (!estimator) {
    const language = LANGUAGE_DICTIONARIES[locale];
    estimator = (language ? language() : Promise.resolve({ dictionary: {} })).then(
      ({ dictionary }) =>
        new ZxcvbnFactory({
          dictionary: {
            ...commonDictionary,
            ...englishDictionary,
            ...byLanguage(dictionary, locale),
          },
          graphs: adjacencyGraphs,
          // Near-misses of every dictionary word cost seconds per estimate; l33t and
          // reversed words are still matched.
          useLevenshteinDistance: false,
        }),
    );
    // A failed load is not kept: the next estimate tries again.
    estimator.catch(() => estimators.delete(locale));
    estimators.set(locale, estimator);
  }
  return estimator;
}

function toStrength(score: PassphraseScore, feedback: FeedbackType): PassphraseStrength {
  const hints = [
    ...new Set(feedback.suggestions.map((key) => HINTS[key]).filter((hint) => hint !== undefined)),
  ];
  return {
    score,
    strong: score >= MIN_SCORE,
    warning: (feedback.warning && WARNINGS[feedback.warning]) || null,
    hints,
  };
}

/**
 * The strength of `passphrase` for a person whose screen is in `locale`;
 * `personal` holds what an attacker would try first (the email address, the
 * app's and the service's names).
 */
export async function estimatePassphrase(
  passphrase: string,
  options: { locale: string; personal?: readonly string[] },
): Promise<PassphraseStrength> {
  const estimator = await estimatorFor(options.locale);
  // Each as written, without its spaces and signs ("bankconnect"), and word by word.
  const personal = (options.personal ?? []).flatMap((text) => [
    text,
    text.replace(/[^\p{L}\p{N}]+/gu, ""),
    ...text.split(/[^\p{L}\p{N}]+/u).filter((part) => part.length >= 3),
  ]);
  const result = estimator.check(passphrase, personal);
  return toStrength(result.score, result.feedback);
}
