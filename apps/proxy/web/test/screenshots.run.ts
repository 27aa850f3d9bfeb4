// Screenshots of the main pages for docs/ui.md, taken from the browser tests' own set-up (a
// real baton-api, the built UI, Debian's chromium) on the showcase data set:
//   pnpm exec turbo run build && cd apps/proxy/web && pnpm run screenshots
// writes docs/ui/*.png. Run it again after a visible change and commit the images.

import { mkdirSync } from "node:fs";
import { join } from "node:path";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, it } from "vitest";
import { type Stack, startStack, WEB_ROOT } from "./harness.js";
import { openShowcasePage, type Showcase, seedShowcase, showcasePages } from "./showcase.js";

const OUT = join(WEB_ROOT, "../../../docs/ui");

let stack: Stack;
let shown: Showcase;

beforeAll(async () => {
  stack = await startStack();
  shown = await seedShowcase(stack.client);
  mkdirSync(OUT, { recursive: true });
});

afterAll(async () => {
  await stack?.close();
});

interface Shot {
  /** docs/ui/<file>.png */
  file: string;
  /** The showcase page to open. */
  page: string;
  width?: number;
  height?: number;
  /** What to do on the page before the picture (open a fold, press a button). */
  prepare?: (page: Page) => Promise<void>;
  /** Photograph this element instead of the viewport. */
  element?: string;
}

const SHOTS: Shot[] = [
  { file: "instances", page: "instances" },
  { file: "instance", page: "instance", height: 1400 },
  {
    file: "tree",
    page: "tree",
    element: "section.instance > section:has(#children-heading)",
  },
  { file: "graph", page: "version", element: "figure.graph" },
  { file: "timeline", page: "instance-completed", element: "section.timeline" },
  { file: "task-form", page: "task" },
  {
    file: "compare",
    page: "compare",
    prepare: async (page) => {
      await page.getByRole("button", { name: "Next change →" }).click();
      await page.locator("tr.diff-current").first().waitFor();
    },
  },
  { file: "instances-390", page: "instances", width: 390, height: 844 },
];

it("photographs the main pages into docs/ui/", async () => {
  const pages = new Map(showcasePages(shown).map((each) => [each.name, each]));
  for (const shot of SHOTS) {
    const page = await stack.browser.newPage({ viewport: { width: shot.width ?? 1280, height: shot.height ?? 800 } });
    try {
      await openShowcasePage(page, stack.web.url, pages.get(shot.page)!);
      await shot.prepare?.(page);
      const path = join(OUT, `${shot.file}.png`);
      if (shot.element) await page.locator(shot.element).first().screenshot({ path });
      else await page.screenshot({ path });
    } finally {
      await page.close();
    }
  }
});
