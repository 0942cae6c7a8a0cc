import { mkdirSync } from "node:fs";
import path from "node:path";
import AxeBuilder from "@axe-core/playwright";
import { expect, type Page } from "@playwright/test";
import { rawSetting } from "../../lib/env";

const SHOTS = rawSetting("SHOTS_DIR");

/**
 * The screen at a phone's (390 px) and a desktop's (1280 px) width: nothing
 * scrolls sideways, then `check` runs at that width. With SHOTS_DIR set, each
 * width is also saved as `<name>-<width>.png` there, to be looked at.
 */
async function atEachWidth(
  page: Page,
  name: string,
  check: (width: number) => Promise<void> = async () => {},
): Promise<void> {
  for (const width of [390, 1280]) {
    await page.setViewportSize({ width, height: 900 });
    const overflow = await page.evaluate(
      () => document.documentElement.scrollWidth - document.documentElement.clientWidth,
    );
    expect(overflow, `${name} scrolls sideways at ${width} px`).toBeLessThanOrEqual(0);
    await check(width);
    if (SHOTS) {
      mkdirSync(SHOTS, { recursive: true });
      await page.screenshot({ path: path.join(SHOTS, `${name}-${width}.png`), fullPage: true });
    }
  }
}

/** The screen as it is at both widths: nothing scrolls sideways and axe finds nothing. */
export async function checkScreenWidths(page: Page, name: string): Promise<void> {
  await atEachWidth(page, name, (width) =>
    expectAxeClean(page, { name: `${name} at ${width} px` }),
  );
}

/** Nothing scrolls sideways at either width (axe is left to the caller). */
export async function checkWidths(page: Page, name: string): Promise<void> {
  await atEachWidth(page, name);
}

export interface AxeCheck {
  /** Names the screen in the failure message. */
  name?: string;
  /** Only what axe rates serious or critical counts; minor and moderate findings pass. */
  seriousOnly?: boolean;
}

/** axe finds nothing on the page as it is now (with `seriousOnly`, nothing serious or critical). */
export async function expectAxeClean(page: Page, check: AxeCheck = {}): Promise<void> {
  const results = await new AxeBuilder({ page }).analyze();
  const counted = check.seriousOnly
    ? results.violations.filter(
        (violation) => violation.impact === "serious" || violation.impact === "critical",
      )
    : results.violations;
  expect(
    counted.map(
      (violation) =>
        `${violation.id} ${violation.nodes.map((node) => node.target.join(" ")).join(", ")}`,
    ),
    check.name ? `axe on ${check.name}` : "axe",
  ).toEqual([]);
}
