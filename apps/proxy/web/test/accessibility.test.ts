// axe-core on every page of the UI, at a desktop width (1440 px) and a phone width (390 px),
// on a seeded data set that fills each page: no serious or critical violation anywhere.

import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { axeViolations, describeViolations } from "./axe.js";
import { mockSession, SIGNED_OUT_SESSION, type Stack, startStack } from "./harness.js";
import { openShowcasePage, type Showcase, seedShowcase, showcasePages } from "./showcase.js";

let stack: Stack;
let shown: Showcase;

beforeAll(async () => {
  stack = await startStack();
  shown = await seedShowcase(stack.client);
});

afterAll(async () => {
  await stack?.close();
});

const WIDTHS = [
  { width: 1440, height: 900 },
  { width: 390, height: 844 },
];

describe("axe on every page", () => {
  for (const viewport of WIDTHS) {
    it(`finds no serious or critical violation at ${viewport.width} px`, async () => {
      const page = await stack.browser.newPage({ viewport });
      page.setDefaultTimeout(30_000);
      try {
        const found: string[] = [];
        for (const each of showcasePages(shown)) {
          await openShowcasePage(page, stack.web.url, each);
          const serious = (await axeViolations(page)).filter((v) => v.impact === "serious" || v.impact === "critical");
          if (serious.length) found.push(`${each.name} (${each.hash}):\n${describeViolations(serious)}`);
          // Narrow screens (docs/ui.md): wide content scrolls in its own box, never the page.
          const width = await page.evaluate(() => document.documentElement.scrollWidth);
          if (width > viewport.width) found.push(`${each.name} (${each.hash}) is ${width} px wide`);
        }
        expect(found.join("\n\n"), "axe's serious and critical violations, and pages wider than the screen").toBe("");
      } finally {
        await page.close();
      }
    }, 120_000);
  }

  it("finds none on the sign-in page either", async () => {
    const page = await stack.browser.newPage();
    try {
      await mockSession(page, SIGNED_OUT_SESSION);
      for (const viewport of WIDTHS) {
        await page.setViewportSize(viewport);
        await page.goto("about:blank");
        await page.goto(`${stack.web.url}/#/instances`);
        await page.getByRole("heading", { name: "Sign in to Baton" }).waitFor({ timeout: 30_000 });
        const serious = (await axeViolations(page)).filter((v) => v.impact === "serious" || v.impact === "critical");
        expect(describeViolations(serious), `sign-in at ${viewport.width} px`).toBe("");
      }
    } finally {
      await page.close();
    }
  }, 60_000);
});
