// Bulk actions from the filtered instance list: a dry run shows what would change, nothing
// changes before "Yes", and the real call's outcome is reported, against a real API.

import type { DefinitionInput } from "@baton/actions";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { axeViolations, describeViolations } from "./axe.js";
import { APPROVAL, BROKEN } from "./fixtures.js";
import { eventually, mockSession, signedInSession, type Stack, startStack } from "./harness.js";

let stack: Stack;
/** APPROVAL with an output: a compatible second version to upgrade the approvals to. */
const APPROVAL_V2 = { ...APPROVAL, output: { doc: "$: input.doc" } };
const approvals: string[] = []; // three approvals: two parked, one resolved (completed)
const broken: string[] = [];

beforeAll(async () => {
  stack = await startStack();
  const { client } = stack;
  for (const definition of [APPROVAL, BROKEN])
    await client.call("putDefinition", { body: definition as DefinitionInput });
  for (let i = 0; i < 3; i++)
    approvals.push((await client.call("startInstance", { body: { process: "approval", input: { doc: `d${i}` } } })).id);
  for (let i = 0; i < 2; i++) broken.push((await client.call("startInstance", { body: { process: "broken" } })).id);
  await eventually("approvals parked and broken failed", async () => {
    const waiting = await client.call("listExternalTasks", { query: { process: "approval" } });
    const failed = await client.call("listInstances", { query: { process: "broken", status: "failed" } });
    return waiting.items.length === 3 && failed.items.length === 2 ? true : undefined;
  });
  await client.call("signalExternalTask", { body: { instance_id: approvals[2]!, task: "review", result: null } });
  await eventually("one approval completed", async () =>
    (await client.call("getInstance", { params: { id: approvals[2]! } })).status === "completed" ? true : undefined,
  );
});

afterAll(async () => {
  await stack?.close();
});

const statusOf = async (id: string) => (await stack.client.call("getInstance", { params: { id } })).status;

async function openBulk(search: string) {
  const { page, web } = stack;
  await page.goto(`${web.url}/#/instances?${search}`);
  await page.getByText("Bulk action on every root these filters select").click();
  await expect.poll(() => page.getByLabel("Action").isVisible()).toBe(true);
}

describe("bulk actions", () => {
  it("previews a pause with what changes and what stays, changes nothing until Yes, then pauses", async () => {
    const { page } = stack;
    await openBulk("process=approval");
    await page.getByLabel("Action").selectOption("pause");
    await page.getByRole("button", { name: "Preview" }).click();
    const preview = page.getByRole("region", { name: "Bulk preview" });
    await expect.poll(() => preview.getByTestId("bulk-preview").textContent()).toContain("would take 3 roots");
    expect(await preview.locator("[data-change]").allTextContents()).toEqual([
      "2 running → paused (pausing while a task drains)",
    ]);
    expect(await preview.locator("[data-stays]").allTextContents()).toEqual([
      "1 completed → unchanged (a completed root is not paused)",
    ]);
    const serious = (await axeViolations(page)).filter((v) => v.impact === "serious" || v.impact === "critical");
    expect(describeViolations(serious), "axe on the open preview").toBe("");
    expect(await Promise.all(approvals.map(statusOf)), "a dry run changes nothing").toEqual([
      "running",
      "running",
      "completed",
    ]);

    await preview.getByRole("button", { name: "Yes, pause 2 roots" }).click();
    await expect.poll(() => page.getByTestId("bulk-result").textContent()).toContain("Pause: 2 paused, 1 unchanged.");
    expect(await Promise.all(approvals.map(statusOf))).toEqual(["paused", "paused", "completed"]);
    const logs = await stack.client.call("listInstanceLogs", { params: { id: approvals[0]! }, query: { limit: 100 } });
    expect(
      logs.items.some((entry) => entry.event.startsWith("instance.paus")),
      "the single verb's log line",
    ).toBe(true);
  });

  it("goes back without changing anything", async () => {
    const { page } = stack;
    await openBulk("process=approval&status=paused");
    await page.getByLabel("Action").selectOption("cancel");
    await page.getByRole("button", { name: "Preview" }).click();
    const preview = page.getByRole("region", { name: "Bulk preview" });
    await expect.poll(() => preview.getByRole("button", { name: "Yes, cancel 2 roots" }).count()).toBe(1);
    await preview.getByRole("button", { name: "Back" }).click();
    await expect.poll(() => preview.count()).toBe(0);
    expect(await Promise.all(approvals.slice(0, 2).map(statusOf))).toEqual(["paused", "paused"]);
  });

  it("retries the failed roots of a filter and reports each outcome", async () => {
    const { page, client } = stack;
    await openBulk("process=broken&status=failed");
    await page.getByLabel("Action").selectOption("retry");
    await page.getByRole("button", { name: "Preview" }).click();
    const preview = page.getByRole("region", { name: "Bulk preview" });
    await expect
      .poll(() => preview.locator("[data-change]").allTextContents())
      .toEqual(["2 failed → retried from the failed task"]);
    await preview.getByText("The roots (2 shown)").click();
    expect(
      (await preview.locator(".id-list a").allTextContents()).sort(),
      "the preview names the roots it would take",
    ).toEqual([...broken].sort());
    await preview.getByRole("button", { name: "Yes, retry 2 roots" }).click();
    await expect.poll(() => page.getByTestId("bulk-result").textContent()).toContain("Retry: 2 retried");
    for (const id of broken) {
      const logs = await client.call("listInstanceLogs", { params: { id }, query: { limit: 100 } });
      expect(logs.items.some((entry) => entry.event === "instance.retried")).toBe(true);
    }
  });

  it("keeps the open panel, its action and its preview in the URL across a reload", async () => {
    const { page, web } = stack;
    await openBulk("process=approval&status=paused");
    await page.getByLabel("Action").selectOption("cancel");
    await page.getByRole("button", { name: "Preview" }).click();
    const preview = page.getByRole("region", { name: "Bulk preview" });
    await expect.poll(() => preview.getByRole("button", { name: "Yes, cancel 2 roots" }).count()).toBe(1);
    await expect
      .poll(() => page.url())
      .toBe(`${web.url}/#/instances?process=approval&status=paused&bulk=cancel&bulk_preview=true`);
    await page.reload();
    await expect
      .poll(() => preview.getByRole("button", { name: "Yes, cancel 2 roots" }).count(), {
        message: "the reload shows the preview again (a dry run changes nothing)",
      })
      .toBe(1);
    expect(await page.getByLabel("Action").inputValue()).toBe("cancel");
    await preview.getByRole("button", { name: "Back" }).click();
    await expect.poll(() => page.url()).toBe(`${web.url}/#/instances?process=approval&status=paused&bulk=cancel`);
    await page.getByText("Bulk action on every root these filters select").click();
    await expect
      .poll(() => page.url(), { message: "closing the panel drops its state" })
      .toBe(`${web.url}/#/instances?process=approval&status=paused`);
    expect(await Promise.all(approvals.slice(0, 2).map(statusOf))).toEqual(["paused", "paused"]);
  });

  it("states exactly what the preview's cap means when more roots match than the dry run lists", async () => {
    const { browser, web } = stack;
    const page = await browser.newPage();
    // Stands in for 12,345 failed roots (too many to start in a browser test): every dry-run
    // call answers a full batch of 1,000 with a cursor, and the counts say 12,345.
    let calls = 0;
    await page.route("**/api/instances/bulk/retry", async (route) => {
      const body = route.request().postDataJSON() as { dry_run?: boolean };
      if (body.dry_run !== true) return route.abort();
      const batch = Array.from({ length: 1000 }, (_, i) => `root-${calls * 1000 + i}`);
      calls++;
      await route.fulfill({
        json: {
          dry_run: true,
          counts: { matched: 1000 },
          ids: { matched: batch },
          refused: [],
          next_cursor: `c${calls}`,
        },
      });
    });
    await page.route("**/api/instances/counts?*", (route) =>
      new URL(route.request().url()).searchParams.get("by") === "status"
        ? route.fulfill({
            json: { by: ["status"], groups: [{ status: "failed", count: 12345 }], total: 12345, truncated: false },
          })
        : route.continue(),
    );
    await page.goto(`${web.url}/#/instances?status=failed&bulk=retry&bulk_preview=true`);
    const preview = page.getByRole("region", { name: "Bulk preview" });
    await expect
      .poll(() => preview.getByTestId("bulk-preview").textContent())
      .toBe("Dry run: Retry would take more than 10,000 roots.");
    expect(calls, "the dry run stops after 10 calls of 1,000").toBe(10);
    expect(await preview.getByTestId("bulk-cap").textContent()).toBe(
      "The dry run lists at most the first 10,000 matching roots (in id order) and stopped there; the counts by status below are exact: 12,345 roots match now. Yes takes every root that matches when it runs, not only the first 10,000.",
    );
    expect(await preview.locator("[data-change]").allTextContents()).toEqual([
      "12,345 failed → retried from the failed task",
    ]);
    expect(await preview.getByRole("button", { name: "Yes, retry 12,345 roots" }).count()).toBe(1);
    await page.close();
  });

  it("upgrades one process's roots from a version to another after the compatibility check and a dry run", async () => {
    const { page, client } = stack;
    await client.call("putDefinition", { body: APPROVAL_V2 as DefinitionInput });
    await openBulk("status=paused");
    await page.getByLabel("Action").selectOption("upgrade");
    await expect.poll(() => page.locator(".bulk").textContent()).toContain("filter the list by a process first");

    await openBulk("process=approval");
    await page.getByLabel("Action").selectOption("upgrade");
    await expect
      .poll(() => page.getByLabel("From version").locator("option").allTextContents())
      .toEqual(["choose", "v2", "v1"]);
    await page.getByLabel("From version").selectOption("1");
    await page.getByLabel("To version").selectOption("2");
    await expect
      .poll(() => page.getByTestId("upgrade-compat").textContent())
      .toContain("Compatible: an instance on any task of v1 can continue under v2");
    await page.getByRole("button", { name: "Preview" }).click();
    const preview = page.getByRole("region", { name: "Bulk preview" });
    await expect
      .poll(() => preview.getByTestId("bulk-preview").textContent())
      .toBe("Dry run: Upgrade v1 → v2 would take 3 roots.");
    expect(await preview.locator("[data-change]").allTextContents()).toEqual([
      "2 paused → moved to v2 (refused where a blocking change concerns the task it sits on)",
    ]);
    expect(await preview.locator("[data-stays]").allTextContents()).toEqual([
      "1 completed → refused (a completed root is not upgraded)",
    ]);
    const serious = (await axeViolations(page)).filter((v) => v.impact === "serious" || v.impact === "critical");
    expect(describeViolations(serious), "axe on the upgrade preview").toBe("");
    const versions = async () =>
      Promise.all(approvals.map(async (id) => (await client.call("getInstance", { params: { id } })).version));
    expect(await versions(), "a dry run changes nothing").toEqual([1, 1, 1]);

    await preview.getByRole("button", { name: "Yes, upgrade 2 roots" }).click();
    await expect.poll(() => page.getByTestId("bulk-result").textContent()).toContain("Upgrade: 2 upgraded, 1 refused.");
    expect(await versions()).toEqual([2, 2, 1]);
  });

  it("refuses a preview that includes children, since bulk actions act on roots", async () => {
    const { page } = stack;
    await openBulk("children=true");
    await page.getByRole("button", { name: "Preview" }).click();
    await expect.poll(() => page.locator(".bulk .error").textContent()).toContain("untick Include children");
  });

  it("is not offered to a reader", async () => {
    const { browser, web } = stack;
    const page = await browser.newPage();
    await mockSession(page, signedInSession("reader@example.com", ["read"]));
    await page.goto(`${web.url}/#/instances`);
    await expect.poll(() => page.locator("tbody tr[data-instance]").count()).toBe(5);
    expect(await page.getByText("Bulk action on every root these filters select").count()).toBe(0);
    await page.close();
  });
});
