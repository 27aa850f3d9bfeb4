// The task graph's labels (defect 2 of the UI issue: switch labels printed over each other,
// left labels cut at the drawing's edge) and the compare view's folded diff with change
// navigation (defect 8: the first change of a long definition sat at row 409 of 470).

import type { DefinitionInput } from "@baton/actions";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BRANCHY, LONG_V1, LONG_V2 } from "./fixtures.js";
import { type Stack, startStack } from "./harness.js";

let stack: Stack;

beforeAll(async () => {
  stack = await startStack();
  for (const definition of [BRANCHY, LONG_V1, LONG_V2])
    await stack.client.call("putDefinition", { body: definition as DefinitionInput });
});

afterAll(async () => {
  await stack?.close();
});

interface Box {
  name: string;
  left: number;
  right: number;
  top: number;
  bottom: number;
}

describe("task graph labels", () => {
  it("draws every branch label whole, inside the drawing, apart from the others and from the tasks", async () => {
    const { page, web } = stack;
    await page.goto(`${web.url}/#/definitions/branchy/1`);
    const svg = page.getByRole("group", { name: "Task graph" });
    await expect.poll(() => svg.locator("g.edge text").count()).toBeGreaterThan(0);
    await page.getByText("Branch conditions in full").click();
    const labelled = await page.getByRole("list", { name: "Branch conditions" }).locator("li").count();
    expect(await svg.locator("g.edge text").count(), "every labelled edge has its label drawn").toBe(labelled);
    expect(labelled, "switch cases, a raise, on_error rules").toBeGreaterThanOrEqual(8);
    // The browser's own measure of each drawn label and task box, in the drawing's units.
    const measured = await svg.evaluate((element) => {
      const box = (node: SVGGraphicsElement, name: string) => {
        const b = node.getBBox();
        return { name, left: b.x, right: b.x + b.width, top: b.y, bottom: b.y + b.height };
      };
      const root = element as SVGSVGElement;
      return {
        width: root.viewBox.baseVal.width,
        height: root.viewBox.baseVal.height,
        labels: [...root.querySelectorAll<SVGTextElement>("g.edge text")].map((text) =>
          box(text, `${text.closest("g")?.getAttribute("data-from")}→${text.closest("g")?.getAttribute("data-to")}`),
        ),
        nodes: [...root.querySelectorAll<SVGRectElement>("g.node rect")].map((rect) =>
          box(rect, rect.closest("g")?.getAttribute("data-task") ?? "?"),
        ),
      };
    });
    const apart = (a: Box, b: Box) => a.right <= b.left || b.right <= a.left || a.bottom <= b.top || b.bottom <= a.top;
    for (const label of measured.labels) {
      expect(label.left, `${label.name} starts inside the drawing (not cut on the left)`).toBeGreaterThanOrEqual(0);
      expect(label.right, `${label.name} ends inside the drawing`).toBeLessThanOrEqual(measured.width);
      expect(label.bottom, `${label.name} is above the bottom edge`).toBeLessThanOrEqual(measured.height);
      for (const other of measured.labels)
        if (other !== label) expect(apart(label, other), `${label.name} and ${other.name} overlap`).toBe(true);
      for (const node of measured.nodes) expect(apart(label, node), `${label.name} covers ${node.name}`).toBe(true);
    }
    const texts = await svg.locator("g.edge text").allTextContents();
    expect(texts, "a short label is drawn whole").toContain("http.503, http.504, http.502");
    expect(texts.some((text) => text.startsWith("self.output.amount > 10000 && input.cur…"))).toBe(true);
  });
});

describe("compare", () => {
  const rows = () => stack.page.locator("table.diff tbody tr");
  const toolbar = () => stack.page.getByRole("toolbar", { name: "Changes" });
  const focusedChange = () => stack.page.evaluate(() => document.activeElement?.getAttribute("data-change") ?? null);

  it("folds the unchanged lines and shows each change with three lines around it", async () => {
    const { page, web, client } = stack;
    await page.goto("about:blank");
    await page.goto(`${web.url}/#/definitions/long/compare?from=1&to=2`);
    await expect.poll(() => toolbar().locator("span").textContent()).toBe("2 changes (+2 −2 lines)");
    const v1 = await client.call("getDefinition", { params: { name: "long", version: 1 } });
    const total = JSON.stringify(v1.definition, null, 2).split("\n").length;
    const shown = await rows().count();
    expect(total, "the canonical JSON is long").toBeGreaterThan(300);
    // Two changes of one removed and one added line, three lines of context each side, three folds.
    expect(shown, "only the changes, their context and the fold buttons are rows").toBe(2 * (2 + 6) + 3);
    const folds = page.locator("tr.diff-fold button");
    expect(await folds.count()).toBe(3);
    expect(await folds.first().textContent()).toMatch(/^Show \d+ unchanged lines \(lines 1–\d+\)$/);
    const changed = await page.locator('table.diff tr[data-kind="added"]').allTextContents();
    expect(changed.join("\n")).toContain('"label": "step thirty"');
    expect(changed.join("\n")).toContain('"n": 380');
  });

  it("moves to the next and previous change, scrolled into view and focused", async () => {
    const { page, web } = stack;
    await page.setViewportSize({ width: 1440, height: 600 });
    await page.goto("about:blank");
    await page.goto(`${web.url}/#/definitions/long/compare?from=1&to=2`);
    await expect.poll(() => toolbar().locator("span").textContent()).toBe("2 changes (+2 −2 lines)");
    // Every line shown: the second change then sits far below the first screen.
    await toolbar().getByRole("button", { name: "Show all lines" }).click();
    await expect.poll(() => page.locator("tr.diff-fold").count()).toBe(0);
    const previous = toolbar().getByRole("button", { name: "← Previous change" });
    const next = toolbar().getByRole("button", { name: "Next change →" });
    expect(await previous.isDisabled(), "nothing before the first change").toBe(true);

    await next.click();
    await expect.poll(() => toolbar().locator("span").textContent()).toBe("Change 1 of 2");
    await expect.poll(focusedChange).toBe("0");
    expect(await page.locator('tr[data-change="0"]').textContent()).toContain('"label": "step 30"');
    await expect.poll(() => page.locator('tr[data-change="0"]').evaluate(inViewport)).toBe(true);

    await next.click();
    await expect.poll(() => toolbar().locator("span").textContent()).toBe("Change 2 of 2");
    await expect.poll(focusedChange).toBe("1");
    expect(await page.locator('tr[data-change="1"]').textContent()).toContain('"n": 38');
    await expect.poll(() => page.locator('tr[data-change="1"]').evaluate(inViewport)).toBe(true);
    expect(await page.locator('tr[data-change="0"]').evaluate(inViewport), "the first change is off screen now").toBe(
      false,
    );
    expect(await next.isDisabled(), "nothing after the last change").toBe(true);

    await previous.click();
    await expect.poll(() => toolbar().locator("span").textContent()).toBe("Change 1 of 2");
    await expect.poll(focusedChange).toBe("0");
    await expect.poll(() => page.locator('tr[data-change="0"]').evaluate(inViewport)).toBe(true);
  });

  it("opens one fold on demand, showing exactly its lines", async () => {
    const { page, web } = stack;
    await page.goto("about:blank");
    await page.goto(`${web.url}/#/definitions/long/compare?from=1&to=2`);
    const between = page.locator("tr.diff-fold button").nth(1);
    await expect.poll(() => between.textContent()).toMatch(/^Show \d+ unchanged lines/);
    const hidden = Number((await between.textContent())!.match(/^Show (\d+)/)![1]);
    const before = await rows().count();
    expect(await page.locator("table.diff").textContent()).not.toContain('"id": "step34"');
    await between.click();
    await expect.poll(() => rows().count()).toBe(before - 1 + hidden);
    expect(await page.locator("table.diff").textContent(), "the folded lines between the changes").toContain(
      '"id": "step34"',
    );
  });
});

/** Whether an element lies wholly inside the browser's viewport (runs in the page). */
function inViewport(element: Element): boolean {
  const box = element.getBoundingClientRect();
  return box.top >= 0 && box.bottom <= window.innerHeight;
}
