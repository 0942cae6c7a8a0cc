import { expect, type Locator, type Page } from "@playwright/test";
import { db } from "../../lib/db/client";
import { normalizeEmail } from "../../lib/mail/address";
import { connectJourneyDatabase } from "./database";
import { E2E_ORIGIN } from "./origin";
import { recordSecret } from "./secrets-seen";

/**
 * Counts what a person sees and does in the hosted flow, from the partner's
 * button to the relay: each screen shown (a page, or a step inside a page,
 * told apart by its address, its heading and the step's heading), each tap (a click or a form
 * sent), each entry typed (an email address, the mail's code) and each
 * passphrase typed, apart. The taps and entries are counted as the journey
 * makes them; the screens are seen by the page itself, whatever the journey
 * expects, so a screen added in between is counted too. The bank's own pages
 * are counted apart: they are the bank's, not the service's.
 */

export interface Screen {
  path: string;
  heading: string;
  /** The bank's own page (the sandbox bank stands for it). */
  bank: boolean;
  /** What the person did on it, in order. */
  actions: string[];
}

export interface PathCount {
  screens: Screen[];
  /** Screens and taps from the moment the mail's code is entered (after the mail). */
  afterMailFrom: number | null;
  /** Passkey sheets the system showed (each a face, fingerprint or device PIN). */
  passkeySheets: number;
  mails: number;
}

export class FlowCounter {
  private readonly screens: Screen[] = [];
  private afterMailFrom: number | null = null;
  private passkeySheets = 0;
  private mailsBefore = 0;
  private stopped = false;

  private constructor(
    private readonly page: Page,
    private readonly email: string,
  ) {}

  /** Starts counting on `page` (before its first navigation of the flow). */
  static async start(page: Page, email: string): Promise<FlowCounter> {
    const counter = new FlowCounter(page, email);
    counter.mailsBefore = await mailsTo(email);
    await page.exposeBinding("__flowScreen", (_source, path: string, heading: string) =>
      counter.seen(path, heading),
    );
    await page.exposeBinding("__flowPasskeySheet", () => {
      if (!counter.stopped) counter.passkeySheets += 1;
    });
    await page.addInitScript((origin: string) => {
      const win = window as unknown as {
        __flowScreen?: (path: string, heading: string) => void;
        __flowPasskeySheet?: () => void;
        __flowHeading?: () => string;
      };
      // A passkey sheet is a ceremony the person answers: creation, or a
      // request that is not the email field's silent suggestion.
      const credentials = navigator.credentials;
      if (credentials && location.origin === origin) {
        const create = credentials.create.bind(credentials);
        const get = credentials.get.bind(credentials);
        credentials.create = async (options) => {
          const made = await create(options);
          if (made) win.__flowPasskeySheet?.();
          return made;
        };
        credentials.get = async (options) => {
          const got = await get(options);
          if (got && options?.mediation !== "conditional") win.__flowPasskeySheet?.();
          return got;
        };
      }
      let last = "";
      // A step inside a page (the key step's passphrase, then its backup
      // file) shows its own second-level heading under the page's.
      const headingNow = () => {
        const title = document.querySelector("h1")?.textContent?.trim() ?? "";
        const step = document.querySelector("main h2")?.textContent?.trim() ?? "";
        return step && title ? `${title} › ${step}` : title;
      };
      win.__flowHeading = headingNow;
      const report = () => {
        const heading = headingNow();
        const key = `${location.pathname}\n${heading}`;
        if (key === last || heading === "") return;
        last = key;
        win.__flowScreen?.(location.pathname, heading);
      };
      const watch = () => {
        report();
        new MutationObserver(report).observe(document.body, {
          subtree: true,
          childList: true,
          characterData: true,
        });
      };
      if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", watch);
      else watch();
    }, E2E_ORIGIN);
    return counter;
  }

  private seen(path: string, heading: string) {
    if (this.stopped) return;
    const last = this.screens.at(-1);
    if (last && last.path === path && last.heading === heading) return;
    // The same page still settling (its step shown once its script ran),
    // before the person did anything on it: one screen.
    const titleOf = (text: string) => text.split(" › ")[0];
    if (
      last &&
      last.path === path &&
      last.actions.length === 0 &&
      titleOf(last.heading) === titleOf(heading)
    ) {
      last.heading = heading;
      return;
    }
    this.screens.push({ path, heading, bank: path.startsWith("/sandbox/"), actions: [] });
  }

  /**
   * The page's address and heading once `locator` is shown. A locator of the
   * page being left can still be visible as the next one loads: its read then
   * fails with the old page, and is made again on the new one.
   */
  private async shownWith(locator: Locator): Promise<{ path: string; heading: string }> {
    for (let attempt = 1; ; attempt++) {
      await locator.waitFor({ state: "visible", timeout: 30_000 });
      try {
        return await this.page.evaluate(() => ({
          path: location.pathname,
          heading: (window as unknown as { __flowHeading: () => string }).__flowHeading(),
        }));
      } catch (error) {
        if (attempt === 5 || !/Execution context was destroyed/.test(String(error))) throw error;
        await this.page.waitForLoadState();
      }
    }
  }

  /**
   * The screen `locator` is on: once it is shown, the page's address and
   * heading then, as the page reported them.
   */
  private async current(locator: Locator): Promise<Screen> {
    const shown = await this.shownWith(locator);
    await expect
      .poll(() => [this.screens.at(-1)?.path, this.screens.at(-1)?.heading], {
        timeout: 30_000,
        message: "screen reported",
      })
      .toEqual([shown.path, shown.heading]);
    return this.screens.at(-1) as Screen;
  }

  /** A tap (click, or a form sent with its button). */
  async tap(locator: Locator, what: string): Promise<void> {
    const screen = await this.current(locator);
    await locator.click();
    screen.actions.push(`tap: ${what}`);
  }

  /** Something typed: an email address or the mail's code (one entry each). */
  async enter(locator: Locator, value: string, what: string): Promise<void> {
    const screen = await this.current(locator);
    await locator.fill(value);
    screen.actions.push(`entry: ${what}`);
  }

  /** A passphrase typed (counted apart from the other entries). */
  async passphrase(locator: Locator, value: string, what: string): Promise<void> {
    recordSecret("passphrase", value);
    const screen = await this.current(locator);
    await locator.fill(value);
    screen.actions.push(`passphrase: ${what}`);
  }

  /** The mail's code, typed from the newest sign-in mail: screens after it count as after the mail. */
  async enterMailCode(locator: Locator): Promise<void> {
    connectJourneyDatabase();
    const mail = await db().outboxMessage.findFirst({
      where: { to: normalizeEmail(this.email), code: { not: null } },
      orderBy: [{ sentAt: "desc" }, { id: "desc" }],
    });
    if (!mail?.code) throw new Error("no sign-in mail");
    recordSecret("pin", mail.code);
    await this.enter(locator, mail.code, "the mail's code");
    this.afterMailFrom = this.screens.length - 1;
  }

  /** Stops counting (the relay reached the partner). */
  async stop(): Promise<PathCount> {
    this.stopped = true;
    return {
      screens: this.screens.map((screen) => ({ ...screen, actions: [...screen.actions] })),
      afterMailFrom: this.afterMailFrom,
      passkeySheets: this.passkeySheets,
      mails: (await mailsTo(this.email)) - this.mailsBefore,
    };
  }
}

async function mailsTo(email: string): Promise<number> {
  connectJourneyDatabase();
  return db().outboxMessage.count({ where: { to: normalizeEmail(email), code: { not: null } } });
}

export interface PathSummary {
  screens: number;
  bankScreens: number;
  /** Screens after the mail's code was entered, the bank's page among them (null: no mail). */
  screensAfterMail: number | null;
  taps: number;
  entries: number;
  passphrases: number;
  bankTaps: number;
  passkeySheets: number;
  mails: number;
}

const countOf = (screens: Screen[], kind: string) =>
  screens.reduce(
    (sum, screen) => sum + screen.actions.filter((action) => action.startsWith(kind)).length,
    0,
  );

export function summarize(count: PathCount): PathSummary {
  const service = count.screens.filter((screen) => !screen.bank);
  const bank = count.screens.filter((screen) => screen.bank);
  return {
    screens: service.length,
    bankScreens: bank.length,
    screensAfterMail:
      count.afterMailFrom === null ? null : count.screens.length - (count.afterMailFrom + 1),
    taps: countOf(service, "tap:"),
    entries: countOf(service, "entry:"),
    passphrases: countOf(service, "passphrase:"),
    bankTaps: countOf(bank, "tap:") + countOf(bank, "entry:"),
    passkeySheets: count.passkeySheets,
    mails: count.mails,
  };
}

/** The table printed for one path. */
export function formatPath(title: string, count: PathCount, targets: string[]): string {
  const summary = summarize(count);
  const rows = count.screens.map((screen, index) => {
    const where = screen.bank ? `${screen.path} (the bank)` : screen.path;
    const mark = count.afterMailFrom !== null && index > count.afterMailFrom ? "*" : " ";
    return `${mark}${String(index + 1).padStart(2)}  ${where.padEnd(32)} ${screen.heading.slice(0, 60).padEnd(60)} ${screen.actions.join(", ") || "-"}`;
  });
  return [
    `== ${title}`,
    ` #   screen (address)                 heading                                                      what the person does`,
    ...rows,
    ...(count.afterMailFrom !== null ? [" (* = after the mail)"] : []),
    `screens: ${summary.screens} of the service + ${summary.bankScreens} at the bank` +
      (summary.screensAfterMail === null
        ? ""
        : `; after the mail: ${summary.screensAfterMail}, the bank's among them`),
    `taps: ${summary.taps} on the service's screens + ${summary.bankTaps} at the bank; ` +
      `entries typed: ${summary.entries}; passphrases typed: ${summary.passphrases}; ` +
      `passkey sheets: ${summary.passkeySheets}; sign-in mails: ${summary.mails}`,
    ...targets,
    "",
  ].join("\n");
}
