// What an on-call operator needs in one look (issue 34's findings), against a real API: the
// incidents by process and error code, trouble columns on a phone, a 390 px instance page with
// its timeline's outcome in view, long task ids whole on the graph, when a failing tree can be
// retried, each failed child's place, durations that include the call, the keyboard, an empty
// list without a pager, and no token form for a non-admin.

import type { DefinitionInput } from "@baton/actions";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { axeViolations, describeViolations } from "./axe.js";
import { BROKEN, LEAF, RISKY } from "./fixtures.js";
import { eventually, mockSession, rowIds, signedInSession, type Stack, startStack } from "./harness.js";

/** Two task ids of 64 characters, the longest the language allows. */
const LONG_A = "reserve_inventory_in_the_warehouse_nearest_to_the_customer_".padEnd(64, "x");
const LONG_B = "notify_the_customer_by_email_and_by_text_message_when_shipped_".padEnd(64, "y");
const LONG = {
  name: "longids",
  tasks: [
    { id: LONG_A, action: { type: "delay", for: "500ms" } },
    { id: LONG_B, switch: [{ raise: { code: "card_declined", message: "declined by the bank" } }] },
  ],
};

let stack: Stack;
const broken: string[] = [];
let risky: string;
let longRun: string;

beforeAll(async () => {
  stack = await startStack();
  const { client } = stack;
  for (const definition of [BROKEN, LEAF, RISKY, LONG])
    await client.call("putDefinition", { body: definition as DefinitionInput });
  for (let i = 0; i < 2; i++) broken.push((await client.call("startInstance", { body: { process: "broken" } })).id);
  risky = (await client.call("startInstance", { body: { process: "risky" } })).id;
  longRun = (await client.call("startInstance", { body: { process: "longids" } })).id;
  await eventually("broken failed, risky failing, longids raised", async () => {
    const counts = await client.call("countInstances", { query: { by: "process,status" } });
    const n = (process: string, status: string) =>
      counts.groups.find((g) => g.process === process && g.status === status)?.count ?? 0;
    return n("broken", "failed") === 2 && n("risky", "failing") === 1 && n("longids", "raised") === 1
      ? true
      : undefined;
  });
});

afterAll(async () => {
  await stack?.close();
});

async function pageAt(width: number): Promise<Page> {
  const page = await stack.browser.newPage({ viewport: { width, height: 900 } });
  page.setDefaultTimeout(10_000);
  return page;
}

/** The right edge of the element `selector` finds, relative to the viewport. */
const rightEdge = (page: Page, selector: string) =>
  page
    .locator(selector)
    .first()
    .evaluate((el) => Math.round(el.getBoundingClientRect().right));

const pageWidth = (page: Page) => page.evaluate(() => document.documentElement.scrollWidth);

async function noSeriousAxe(page: Page, what: string) {
  const serious = (await axeViolations(page)).filter((v) => v.impact === "serious" || v.impact === "critical");
  expect(describeViolations(serious), `axe: ${what}`).toBe("");
}

describe("incidents on the home page", () => {
  for (const width of [1440, 390])
    it(`groups failures and raises by process and error code at ${width} px, each a link to its list and its bulk retry`, async () => {
      const page = await pageAt(width);
      await page.goto(`${stack.web.url}/#/instances`);
      const table = page.getByRole("table", { name: "Incidents", exact: true });
      const group = table.locator('tr[data-incident="broken/pre.error/failed"]');
      await expect.poll(() => group.locator("td").first().textContent()).toMatch(/^2 /);
      expect(await table.locator('tr[data-incident="longids/card_declined/raised"] td').first().textContent()).toMatch(
        /^1 /,
      );
      expect(
        await table.locator('tr[data-incident="longids/card_declined/raised"]').getByRole("link").count(),
        "a raise is listed, never retried",
      ).toBe(1);
      expect(await pageWidth(page), "the page fits the screen").toBeLessThanOrEqual(width);
      await noSeriousAxe(page, `home with incidents at ${width} px`);

      await group.getByRole("link", { name: /preview a bulk retry/ }).click();
      await expect.poll(() => page.getByText("Dry run: Retry would take 2 roots").count()).toBe(1);
      expect(page.url()).toContain("error_code=pre.error");
      expect(page.url()).toContain("process=broken");
      await page.goto("about:blank");
      await page.goto(`${stack.web.url}/#/instances`);
      await group.getByRole("link", { name: /list them/ }).click();
      await expect.poll(() => rowIds(page).then((ids) => ids.sort())).toEqual([...broken].sort());
      await page.close();
    });

  for (const width of [1440, 390])
    it(`charts completions, failures and raises per process over time at ${width} px, with trouble since when`, async () => {
      const page = await pageAt(width);
      await page.goto(`${stack.web.url}/#/instances`);
      const broken = page.locator('figure[data-activity="broken"]');
      await expect
        .poll(() => broken.getByTestId("activity-totals").textContent())
        .toBe("0 completed, 2 failed, 0 raised");
      expect(await broken.locator("figcaption").textContent()).toMatch(/trouble since .+ ago\)/);
      expect(await page.locator('figure[data-activity="longids"]').getByRole("img").getAttribute("aria-label")).toBe(
        "longids: 0 completed, 0 failed, 1 raised",
      );
      expect(await broken.locator("rect.activity-failed").count(), "a bar for the failures").toBeGreaterThan(0);
      await page.getByLabel("Window").selectOption("hour");
      await expect
        .poll(() => broken.getByTestId("activity-totals").textContent())
        .toBe("0 completed, 2 failed, 0 raised");
      expect(await pageWidth(page)).toBeLessThanOrEqual(width);
      await noSeriousAxe(page, `the chart at ${width} px`);
      await page.close();
    });

  it("makes each row's error code a link to every instance with that code", async () => {
    const page = await pageAt(1440);
    await page.goto(`${stack.web.url}/#/instances?process=longids`);
    const code = page.locator(`tr[data-instance="${longRun}"]`).getByRole("link", { name: /card_declined/ });
    await code.click();
    await expect.poll(() => page.url()).toContain("error_code=card_declined");
    await expect.poll(() => rowIds(page)).toEqual([longRun]);
    await page.close();
  });

  it("finds failures by an error code prefix such as pre.%", async () => {
    const page = await pageAt(1440);
    await page.goto(`${stack.web.url}/#/instances`);
    await page.getByLabel(/^Error code/).fill("pre.%");
    await page.getByRole("button", { name: "Apply filters" }).click();
    await expect.poll(() => rowIds(page).then((ids) => ids.sort())).toEqual([...broken].sort());
    expect(page.url()).toContain("error_code=pre.%25");
    await page.close();
  });

  it("keeps failing, failed and raised on screen in the counts table at 390 px", async () => {
    const page = await pageAt(390);
    await page.goto(`${stack.web.url}/#/instances`);
    const table = page.getByRole("table", { name: "Counts by status" });
    await expect.poll(() => table.locator("th", { hasText: "raised" }).count()).toBe(1);
    for (const status of ["failed", "failing", "raised"])
      expect(
        await rightEdge(page, `table[aria-label="Counts by status"] thead th:text-is("${status}")`),
        `${status} is on screen`,
      ).toBeLessThanOrEqual(390);
    await page.close();
  });

  it("shows no pager over an empty result, only the sentence", async () => {
    const page = await pageAt(1440);
    await page.goto(`${stack.web.url}/#/instances?key=nobody-has-this-key`);
    await expect.poll(() => page.getByText("No instance matches these filters.").count()).toBe(1);
    expect(await page.getByRole("navigation", { name: "Instance pages" }).count()).toBe(0);
    await page.close();
  });
});

describe("an instance at a glance", () => {
  for (const width of [1440, 390])
    it(`draws 64-character task ids whole inside their nodes at ${width} px`, async () => {
      const page = await pageAt(width);
      await page.goto(`${stack.web.url}/#/instances/${longRun}`);
      const nodes = page.locator("svg g.node").filter({ has: page.locator(".node-id") });
      await expect.poll(() => page.locator("svg .node-id", { hasText: LONG_A }).count()).toBe(1);
      const overflow = await nodes.evaluateAll((groups) =>
        groups.flatMap((g) => {
          const rect = g.querySelector("rect")!.getBBox();
          const text = (g.querySelector(".node-id") as SVGTextContentElement).getBBox();
          return text.x >= rect.x + 2 && text.x + text.width <= rect.x + rect.width - 2
            ? []
            : [`${g.textContent}: text ${text.x}..${text.x + text.width} in rect ${rect.x}..${rect.x + rect.width}`];
        }),
      );
      expect(overflow).toEqual([]);
      await page.close();
    });

  for (const width of [1440, 390])
    it(`fits the instance page in ${width} px with the timeline's attempt and outcome in view`, async () => {
      const page = await pageAt(width);
      await page.goto(`${stack.web.url}/#/instances/${longRun}`);
      const timeline = page.getByRole("table", { name: "Execution timeline" });
      await expect.poll(() => timeline.locator("tbody tr").count()).toBe(2);
      await expect.poll(() => page.locator("table.logs tbody tr").count()).toBeGreaterThan(0);
      expect(await pageWidth(page), "the page is no wider than the screen").toBeLessThanOrEqual(width);
      for (const column of ["Attempt", "Outcome"])
        expect(
          await rightEdge(page, `table[aria-label="Execution timeline"] thead th:text-is("${column}")`),
          `${column} is on screen`,
        ).toBeLessThanOrEqual(width);
      await page.close();
    });

  for (const width of [1440, 390])
    it(`writes on each task of a version's graph how many instances sit there, live, failed and raised, at ${width} px`, async () => {
      const page = await pageAt(width);
      await page.goto(`${stack.web.url}/#/definitions/broken/1`);
      const node = (task: string) => page.locator(`svg g.node[data-task="${task}"] .node-detail`);
      // Two roots and the child "bad" of the risky tree: children are counted too.
      await expect.poll(() => node("call").textContent()).toBe("fetch GET · 3 failed");
      await page.goto("about:blank");
      await page.goto(`${stack.web.url}/#/definitions/longids/1`);
      await expect.poll(() => node(LONG_B).textContent()).toBe("route · 1 raised");
      expect(await node(LONG_A).textContent(), "nobody waits there now").toBe("delay");
      await expect.poll(() => page.getByTestId("where-caption").count()).toBe(1);
      expect(await pageWidth(page)).toBeLessThanOrEqual(width);
      await noSeriousAxe(page, `a version's graph with counts at ${width} px`);
      await page.close();
    });

  it("shows a delay's duration as the time it was asked to wait, with how late the engine woke", async () => {
    const page = await pageAt(1440);
    await page.goto(`${stack.web.url}/#/instances/${longRun}`);
    const delay = page.locator(`table[aria-label="Execution timeline"] tbody tr[data-task="${LONG_A}"]`);
    await expect
      .poll(() => delay.locator("td").nth(2).textContent())
      .toMatch(/^500 ms( \(woke \d+(\.\d)? (ms|s) later\))?$/);
    await page.close();
  });

  it("says when a failing tree's Retry becomes possible, and lists each failed child with its place", async () => {
    const page = await pageAt(1440);
    await page.goto(`${stack.web.url}/#/instances/${risky}`);
    await expect
      .poll(() => page.getByTestId("retry-when").textContent())
      .toContain(
        "Retry becomes possible when this tree has failed: a child failed, and the tree fails once its 1 other child that is still running settle",
      );
    expect(await page.getByRole("button", { name: "Retry" }).count(), "not offered yet").toBe(0);
    await expect.poll(() => page.getByTestId("child-place").allTextContents()).toEqual(["both[bad]"]);
    await page.close();
  });
});

describe("the keyboard", () => {
  it("focuses the page heading after a navigation, `/` the search, and `j`/`k` walk the rows", async () => {
    const page = await pageAt(1440);
    await page.goto(`${stack.web.url}/#/instances?process=broken`);
    await expect.poll(() => rowIds(page).then((ids) => ids.length)).toBe(2);
    await page.keyboard.press("Tab");
    expect(await page.evaluate(() => document.activeElement?.textContent), "a skip link comes first").toBe(
      "Skip to content",
    );
    await page.keyboard.press("Escape");
    await page.locator("body").click({ position: { x: 5, y: 300 } });
    await page.keyboard.press("/");
    expect(await page.evaluate(() => (document.activeElement as HTMLInputElement).type)).toBe("search");
    await page.keyboard.press("Escape");
    await page.locator("body").click({ position: { x: 5, y: 300 } });
    await page.keyboard.press("j");
    const focusedRow = () => page.evaluate(() => document.activeElement?.closest("tr")?.getAttribute("data-instance"));
    const ids = await rowIds(page);
    expect(await focusedRow()).toBe(ids[0]);
    await page.keyboard.press("j");
    expect(await focusedRow()).toBe(ids[1]);
    await page.keyboard.press("k");
    expect(await focusedRow()).toBe(ids[0]);
    await page.keyboard.press("Enter");
    await expect
      .poll(() => page.evaluate(() => `${document.activeElement?.tagName} ${document.activeElement?.textContent}`))
      .toBe(`H1 Instance ${ids[0]}`);
    await page.close();
  });
});

describe("tokens", () => {
  it("shows a non-admin no Create token form, only why", async () => {
    const page = await pageAt(1440);
    await mockSession(page, signedInSession("reader@example.com", ["read", "operate"]));
    await page.goto(`${stack.web.url}/#/tokens`);
    await expect.poll(() => page.getByTestId("needs-admin").count()).toBe(1);
    expect(await page.getByRole("form", { name: "Create a token" }).count()).toBe(0);
    await page.close();
  });
});

describe("times, theme and starting a run", () => {
  it("shows times in UTC once chosen, and remembers the choice across a reload", async () => {
    const page = await pageAt(1440);
    await page.goto(`${stack.web.url}/#/instances?process=broken`);
    const created = page.locator(`tr[data-instance="${broken[0]}"] time`).first();
    await expect.poll(() => created.textContent()).not.toContain("UTC");
    await page.getByLabel("Times").selectOption("utc");
    await expect.poll(() => created.textContent()).toMatch(/ UTC \(/);
    await page.reload();
    await expect.poll(() => created.textContent()).toMatch(/ UTC \(/);
    expect(await page.getByLabel("Times").inputValue()).toBe("utc");
    await page.getByLabel("Times").selectOption("local");
    await page.close();
  });

  for (const width of [1440, 390])
    it(`follows a dark system setting at ${width} px, with no contrast or other violation`, async () => {
      const page = await stack.browser.newPage({ viewport: { width, height: 900 }, colorScheme: "dark" });
      for (const hash of ["#/instances", `#/instances/${risky}`, "#/definitions/leaf"]) {
        await page.goto("about:blank");
        await page.goto(`${stack.web.url}/${hash}`);
        await expect.poll(() => page.locator("main h1").count()).toBe(1);
        await page.waitForLoadState("networkidle");
        const background = await page.evaluate(() => getComputedStyle(document.documentElement).backgroundColor);
        expect(background, "a dark page").toBe("rgb(20, 23, 28)");
        await noSeriousAxe(page, `${hash} in the dark theme at ${width} px`);
      }
      await page.close();
    });

  it("starts a run from the process page with a form from its input_schema, sending an Idempotency-Key", async () => {
    const page = await pageAt(1440);
    const sent: Record<string, string>[] = [];
    page.on("request", (request) => {
      if (request.method() === "POST" && request.url().endsWith("/api/instances")) sent.push(request.headers());
    });
    await page.goto(`${stack.web.url}/#/definitions/leaf`);
    const form = page.getByRole("form", { name: "Start a run" });
    await expect.poll(() => form.locator("#input-n").count()).toBe(1);
    await form.getByRole("button", { name: "Start" }).click();
    await expect.poll(() => page.evaluate(() => document.activeElement?.id)).toBe("input-n");
    expect(await page.locator("#input-n-error").textContent()).toBe("required: fill it in");
    expect(sent, "nothing sent while a required field is empty").toEqual([]);

    await form.locator("#input-n").fill("5");
    await form.getByLabel("Business key").fill("k-5");
    await form.getByRole("button", { name: "Start" }).click();
    await expect.poll(() => form.getByRole("status").textContent()).toMatch(/^Started /);
    const id = (await form.getByRole("status").getByRole("link").textContent())!;
    const view = await stack.client.call("getInstance", { params: { id } });
    expect(view.key).toBe("k-5");
    const detail = await stack.client.call("getInstanceDetail", { params: { id } });
    expect(detail.state.input).toEqual({ n: 5 });
    const idempotencyKey = sent[0]!["idempotency-key"]!;
    expect(idempotencyKey).toMatch(/^[0-9a-f-]{36}$/);
    const again = await stack.client.call("startInstance", {
      body: { process: "leaf", version: 1, input: { n: 5 }, key: "k-5" },
      headers: { "idempotency-key": idempotencyKey },
    });
    expect(again.id, "the same request starts the same instance").toBe(id);
    await stack.client.call("cancelInstance", { params: { id } });
    await page.close();
  });
});

/**
 * Presses Tab until the focused element matches `selector` (and its text starts with `text`),
 * at most `max` presses; how many it took.
 */
async function tabTo(page: Page, selector: string, text = "", max = 150): Promise<number> {
  for (let presses = 1; presses <= max; presses++) {
    await page.keyboard.press("Tab");
    const reached = await page.evaluate(
      ([s, t]) => !!document.activeElement?.matches(s!) && (document.activeElement.textContent ?? "").startsWith(t!),
      [selector, text],
    );
    if (reached) return presses;
  }
  throw new Error(`${max} Tab presses never reached ${selector}`);
}

describe("keyboard only", () => {
  it("resolves a human task from the tasklist without a pointer", async () => {
    const { client } = stack;
    const id = (await client.call("startInstance", { body: { process: "leaf", input: { n: 7 } } })).id;
    await eventually("the leaf waits", async () =>
      (await client.call("listExternalTasks", { query: { instance_id: id } })).items.length ? true : undefined,
    );
    const page = await pageAt(1440);
    await page.goto(`${stack.web.url}/#/external`);
    await expect.poll(() => page.locator(`tr[data-instance="${id}"]`).count()).toBe(1);
    await tabTo(page, `tr[data-instance="${id}"] a[href="#/external/${id}"]`);
    await page.keyboard.press("Enter");
    await expect.poll(() => page.evaluate(() => document.activeElement?.tagName)).toBe("H1");
    await tabTo(page, "#result-value");
    await page.keyboard.type('{"ok": true}');
    await tabTo(page, 'form[aria-label="Resolve"] button[type="submit"]');
    await page.keyboard.press("Enter");
    await expect
      .poll(() => page.getByRole("status").first().textContent())
      .toContain("Resolved: task wait took the result");
    await eventually("the leaf completed", async () =>
      (await client.call("getInstance", { params: { id } })).status === "completed" ? true : undefined,
    );
    await page.close();
  });

  it("bulk-retries a failure group from the home page without a pointer", async () => {
    const page = await pageAt(1440);
    await page.goto(`${stack.web.url}/#/instances`);
    const retry = 'tr[data-incident="broken/pre.error/failed"] a[href*="bulk=retry"]';
    await expect.poll(() => page.locator(retry).count()).toBe(1);
    await tabTo(page, retry);
    await page.keyboard.press("Enter");
    await expect.poll(() => page.getByText("Dry run: Retry would take 2 roots").count()).toBe(1);
    await tabTo(page, "button", "Yes, retry");
    await page.keyboard.press("Enter");
    await expect.poll(() => page.getByTestId("bulk-result").textContent()).toContain("Retry: 2 retried");
    await page.close();
  });
});
