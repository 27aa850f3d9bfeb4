import type { DefinitionInput } from "@baton/actions";
import { json, startUpstream, type Upstream } from "@baton/testkit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { chargeDefinition, ORDER_V1, ORDER_V2, ORDER_V3_WITHOUT_APPROVE } from "./fixtures.js";
import { eventually, type Stack, startStack } from "./harness.js";

let stack: Stack;
let upstream: Upstream; // the payment service the "charge" process calls

beforeAll(async () => {
  upstream = await startUpstream((_request, res) => json(res, 503, { error: "payments are down" }));
  stack = await startStack();
  for (const definition of [ORDER_V1, ORDER_V2, chargeDefinition(upstream.url)]) {
    await stack.client.call("putDefinition", { body: definition as DefinitionInput });
  }
});

afterAll(async () => {
  await stack?.close();
  await upstream?.close();
});

/** An order on version 1, parked on its external task "approve". */
async function parkedOrder(item: string): Promise<string> {
  const { client } = stack;
  const id = (await client.call("startInstance", { body: { process: "order", version: 1, input: { item } } })).id;
  await eventually(`order ${item} parked on approve`, async () =>
    (await client.call("getInstanceDetail", { params: { id } })).phase === "external" ? true : undefined,
  );
  return id;
}

const facts = () => stack.page.locator("dl.facts");
const shownStatus = () => facts().locator(".status").textContent();
const button = (name: string) => stack.page.getByRole("button", { name, exact: true });

const focused = () => stack.page.evaluate(() => document.activeElement?.outerHTML.slice(0, 120) ?? "");

describe("cancel from the instance page", () => {
  it("asks for confirmation, keeps the instance when told to, and cancels it when confirmed", async () => {
    const { page, web, client } = stack;
    const id = await parkedOrder("umbrella");
    await page.goto(`${web.url}/#/instances/${id}`);
    await expect.poll(shownStatus).toBe("running");

    await button("Cancel").click();
    const confirm = page.getByRole("group", { name: "Confirm cancel" });
    expect(await focused(), "the confirmation takes focus on its safe choice").toContain("Keep it");
    expect(await confirm.textContent(), "cancelling is irreversible, so the UI says so first").toContain(
      "Cancel the whole tree? This cannot be undone.",
    );
    expect(
      (await client.call("getInstance", { params: { id } })).status,
      "asking for confirmation changes nothing",
    ).toBe("running");

    await confirm.getByRole("button", { name: "Keep it" }).click();
    expect(await confirm.count()).toBe(0);
    expect(await button("Cancel").count(), "keeping it brings the plain button back").toBe(1);
    expect(await focused(), "and focus returns to it, not to <body>").toContain(">Cancel<");
    expect((await client.call("getInstance", { params: { id } })).status).toBe("running");

    await button("Cancel").click();
    await confirm.getByRole("button", { name: "Yes, cancel it" }).click();
    await expect.poll(() => page.getByRole("status").first().textContent()).toContain("Cancel: cancelled");
    await expect.poll(focused, { message: "focus lands on the outcome, not on <body>" }).toContain("lifecycle-result");
    await expect.poll(shownStatus).toBe("cancelled");
    expect((await client.call("getInstance", { params: { id } })).status, "the API agrees").toBe("cancelled");
    expect(await button("Cancel").count(), "a cancelled instance offers no cancel").toBe(0);
    expect(await button("Retry").count(), "a cancelled instance is not retryable").toBe(0);
    expect(await page.locator(".lifecycle").textContent()).toContain("No action applies to a cancelled instance");
  });
});

describe("retry of a failed instance", () => {
  it("runs the failed task again, and the instance completes once the upstream answers", async () => {
    const { page, web, client } = stack;
    const id = (await client.call("startInstance", { body: { process: "charge" } })).id;
    const failed = await eventually("charge failed on the 503", async () => {
      const view = await client.call("getInstance", { params: { id } });
      return view.status === "failed" ? view : undefined;
    });
    expect(failed.error_code).toBe("http.503");
    expect(upstream.requests).toHaveLength(1);

    await page.goto(`${web.url}/#/instances/${id}`);
    await expect.poll(shownStatus).toBe("failed");
    expect(await facts().textContent(), "the error is shown next to the retry button").toContain("http.503");

    upstream.handle((_request, res) => json(res, 200, { receipt: "r-42" }));
    await button("Retry").click();
    await expect.poll(() => page.getByRole("status").first().textContent()).toContain("Retry: retried");
    await expect
      .poll(shownStatus, { message: "the retried instance runs again and completes", timeout: 15_000 })
      .toBe("completed");
    expect(await page.getByRole("figure", { name: "Instance output" }).textContent()).toContain('"receipt": "r-42"');

    const view = await client.call("getInstance", { params: { id } });
    expect(view.status, "the API agrees").toBe("completed");
    expect(view.output).toEqual({ receipt: "r-42" });
    expect(view.error_code, "the old error is gone").toBeUndefined();
    expect(upstream.requests, "the retry called the upstream once more").toHaveLength(2);
    expect(await facts().textContent()).not.toContain("http.503");
  });
});

describe("reset of a completed instance", () => {
  it("reruns it from the chosen task with the state of its first entry, and says what it did", async () => {
    const { page, web, client } = stack;
    upstream.handle((_request, res) => json(res, 200, { receipt: "r-7" }));
    const id = (await client.call("startInstance", { body: { process: "charge" } })).id;
    await eventually("charge completed", async () =>
      (await client.call("getInstance", { params: { id } })).status === "completed" ? true : undefined,
    );
    const calls = upstream.requests.length;

    await page.goto(`${web.url}/#/instances/${id}`);
    await expect.poll(shownStatus).toBe("completed");
    const form = page.getByRole("form", { name: "Reset" });
    await expect.poll(() => form.getByRole("combobox").inputValue()).toBe("charge");
    await form.getByRole("button", { name: "Reset", exact: true }).click();
    await expect
      .poll(() => form.getByRole("status").textContent())
      .toBe(
        "Reset to task charge (visit 2, status running) with the state of its first entry (visit 1). Dropped outputs: charge.",
      );
    await expect
      .poll(() => upstream.requests.length, { message: "the reset calls the upstream once more", timeout: 15_000 })
      .toBe(calls + 1);
    await eventually("completed again", async () =>
      (await client.call("getInstance", { params: { id } })).status === "completed" ? true : undefined,
    );
    await expect.poll(shownStatus, { message: "the page shows it completed again", timeout: 15_000 }).toBe("completed");
    const logs = await client.call("listInstanceLogs", { params: { id }, query: { limit: 100 } });
    expect(logs.items.map((l) => l.event)).toContain("instance.reset");
  });
});

describe("upgrade of a paused instance", () => {
  it("moves it to a compatible newer version, and it then runs the new version's tasks", async () => {
    const { page, web, client } = stack;
    const id = await parkedOrder("kettle");
    await page.goto(`${web.url}/#/instances/${id}`);
    await expect.poll(shownStatus).toBe("running");
    await button("Pause").click();
    await expect.poll(shownStatus).toBe("paused");

    const form = page.getByRole("form", { name: "Upgrade" });
    await form.getByLabel("Upgrade from v1 to").selectOption("2");
    await form.getByRole("button", { name: "Upgrade" }).click();
    await expect.poll(() => form.getByRole("status").textContent()).toBe("Upgraded to version 2 (1 instance moved).");
    await expect.poll(() => facts().textContent()).toContain("order v2");
    const after = await client.call("getInstance", { params: { id } });
    expect([after.version, after.status], "the API agrees: version 2, still paused").toEqual([2, "paused"]);

    await button("Resume").click();
    await expect.poll(shownStatus).toBe("running");
    await client.call("signalExternalTask", { body: { instance_id: id, task: "approve", result: { ok: true } } });
    await expect.poll(shownStatus, { timeout: 15_000 }).toBe("completed");
    expect(
      await page.getByRole("figure", { name: "Output of notify" }).textContent(),
      "notify exists only in version 2",
    ).toContain('"note": "approved"');
    const detail = await client.call("getInstanceDetail", { params: { id } });
    expect(Object.keys(detail.state.outputs ?? {})).toContain("notify");
  });

  it("shows the API's refusal when the target version cannot take the instance", async () => {
    const { page, web, client } = stack;
    // Version 3 drops the task "approve" that the instance sits on: the upgrade check refuses it.
    await client.call("putDefinition", { body: ORDER_V3_WITHOUT_APPROVE as DefinitionInput });
    const id = await parkedOrder("teapot");
    await page.goto(`${web.url}/#/instances/${id}`);
    await expect.poll(shownStatus).toBe("running");
    const form = page.getByRole("form", { name: "Upgrade" });
    await form.getByLabel("Upgrade from v1 to").selectOption("3");
    await form.getByRole("button", { name: "Upgrade" }).click();
    await expect.poll(() => form.getByRole("alert").textContent()).toContain('sits on task "approve"');
    expect((await client.call("getInstance", { params: { id } })).version, "the instance stays on version 1").toBe(1);
  });
});

describe("accessibility basics", () => {
  it("has a skip link first in the tab order, a title per page, an inline favicon and contrasting input borders", async () => {
    const { web } = stack;
    const page = await stack.browser.newPage();
    const missing: string[] = [];
    page.on("response", (response) => {
      // /auth/session answers 404 here on purpose: that is how the UI learns it runs without sign-in.
      if (response.status() === 404 && !response.url().endsWith("/auth/session")) missing.push(response.url());
    });
    await page.goto(`${web.url}/#/instances`);
    await expect.poll(() => page.title()).toBe("Instances · Baton");
    const firstFocusable = await page.evaluate(
      () => document.querySelector("a[href], button, input, select, textarea, [tabindex='0']")?.textContent,
    );
    expect(firstFocusable, "the skip link comes first in the tab order").toBe("Skip to content");
    await page.getByRole("button", { name: "Skip to content" }).focus();
    await page.keyboard.press("Enter");
    expect(await page.evaluate(() => document.activeElement?.id), "Enter moves focus to the main content").toBe("main");
    expect(page.url(), "the route is unchanged").toBe(`${web.url}/#/instances`);
    const border = await page.getByLabel("Process").evaluate((input) => getComputedStyle(input).borderTopColor);
    expect(border, "#6b7785: 4.6:1 against white").toBe("rgb(107, 119, 133)");
    expect(await page.locator('link[rel="icon"]').getAttribute("href")).toMatch(/^data:image\/svg\+xml,/);

    await page.goto(`${web.url}/#/definitions`);
    await expect.poll(() => page.title()).toBe("Definitions · Baton");
    await page.goto(`${web.url}/#/tokens`);
    await expect.poll(() => page.title()).toBe("API tokens · Baton");
    expect(missing, "no request answers 404 (no /favicon.ico)").toEqual([]);
    await page.close();
  });
});

describe("narrow screens", () => {
  it("keeps every page within a 390 px viewport, with the whole nav reachable", async () => {
    const { web } = stack;
    const page = await stack.browser.newPage({ viewport: { width: 390, height: 844 } });
    const id = await parkedOrder("narrow"); // something on every list, the external tasks page too
    // Each page in a fresh document, measured once its data is on screen (a hash-only goto keeps
    // the document, and its network idle was reached long before).
    const pages: [string, string][] = [
      ["#/instances", "tbody tr[data-instance]"],
      ["#/external", "tbody tr[data-instance]"],
      ["#/definitions", "tbody tr"],
      ["#/channels", "main h1"],
      ["#/tokens", "main h1"],
    ];
    for (const [hash, ready] of pages) {
      await page.goto("about:blank");
      await page.goto(`${web.url}/${hash}`);
      await page.locator(ready).first().waitFor();
      await page.waitForLoadState("networkidle");
      const width = await page.evaluate(() => document.documentElement.scrollWidth);
      expect(width, `${hash} is no wider than the screen`).toBeLessThanOrEqual(390);
    }
    await page.goto("about:blank");
    await page.goto(`${web.url}/#/instances/${id}`);
    await page.locator("svg g.node-current").waitFor();
    await page.waitForLoadState("networkidle");
    expect(await page.evaluate(() => document.documentElement.scrollWidth), "the instance page").toBeLessThanOrEqual(
      390,
    );
    for (const name of ["Channels", "Tokens"]) {
      const box = await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name }).boundingBox();
      expect(box && box.x + box.width, `${name} is on screen`).toBeLessThanOrEqual(390);
    }
    await page.close();
  });
});
