import { describe, expect, it } from "vitest";
import { estimatePassphrase, MIN_SCORE } from "./passphrase-strength";

/** The backup passphrase's strength (docs/key-model.md): long enough is not enough. */

const personal = ["maria.virtanen@example.com", "Acme Budget", "Bank Connect"];

describe("backup passphrase strength", { timeout: 60_000 }, () => {
  it("refuses ten characters that are easy to guess", async () => {
    for (const passphrase of ["password12", "1234567890", "qwertyuiop", "aaaaaaaaaa"]) {
      const strength = await estimatePassphrase(passphrase, { locale: "en", personal });
      expect(strength.strong, passphrase).toBe(false);
      expect(strength.score, passphrase).toBeLessThan(MIN_SCORE);
    }
  });

  it("says why, by its own keys (the screen words them)", async () => {
    const estimate = (passphrase: string) =>
      estimatePassphrase(passphrase, { locale: "en", personal });
    expect((await estimate("password12")).warning).toBe("common");
    expect((await estimate("qwertyuiop")).warning).toMatch(/^(keyboard|common)$/);
    expect((await estimate("hunter2hunter2")).warning).toBe("repeat");
    expect((await estimate("Passwort2024")).hints).toContain("capitals");
  });

  it("counts what the person typed elsewhere as guessable", async () => {
    for (const passphrase of ["maria.virtanen@example.com", "bankconnect123", "AcmeBudget2024"]) {
      const strength = await estimatePassphrase(passphrase, { locale: "en", personal });
      expect(strength.strong, passphrase).toBe(false);
    }
    expect(
      (await estimatePassphrase("maria.virtanen@example.com", { locale: "en", personal })).warning,
    ).toBe("personal");
  });

  it("knows the words of the screen's language where a dictionary exists", async () => {
    // A common German word with a year: strong to an English-only estimator, not in German.
    const english = await estimatePassphrase("Sommer2024!", { locale: "en", personal });
    const german = await estimatePassphrase("Sommer2024!", { locale: "de", personal });
    expect(german.score).toBeLessThan(english.score);
    expect(german.strong).toBe(false);
  });

  it("accepts several words that do not belong together, in any of the 12 languages", async () => {
    for (const locale of ["da", "de", "en", "es", "fi", "fr", "it", "nb", "nl", "pl", "pt", "sv"]) {
      const strength = await estimatePassphrase("correct horse battery staple", {
        locale,
        personal,
      });
      expect(strength, locale).toMatchObject({ strong: true, warning: null });
    }
    expect((await estimatePassphrase("ajolähtö kesäpäivä kettu", { locale: "fi" })).strong).toBe(
      true,
    );
  });
});
