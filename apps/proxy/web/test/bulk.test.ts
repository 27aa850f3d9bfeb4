// Bulk actions from the filtered instance list: a dry run shows what would change, nothing
// changes before "Yes", and the real call's outcome is reported, against a real API.

import type { DefinitionInput } from "@baton/actions";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { axeViolations, describeViolations } from "./axe.js";
import { APPROVAL, BROKEN } from "./fixtures.js";
import { eventually, mockSession, type Stack, startStack } from "./harness.js";

let stack: Stack;
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

  it("refuses a preview that includes children, since bulk actions act on roots", async () => {
    const { page } = stack;
    await openBulk("children=true");
    await page.getByRole("button", { name: "Preview" }).click();
    await expect.poll(() => page.locator(".bulk .error").textContent()).toContain("untick Include children");
  });

  it("is not offered to a reader", async () => {
    const { browser, web } = stack;
    const page = await browser.newPage();
    await mockSession(page, {
      login: true,
      signed_in: true,
      subject: "reader@example.com",
      permissions: ["read"],
      providers: [],
      password_login: true,
    });
    await page.goto(`${web.url}/#/instances`);
    await expect.poll(() => page.locator("tbody tr[data-instance]").count()).toBe(5);
    expect(await page.getByText("Bulk action on every root these filters select").count()).toBe(0);
    await page.close();
  });
});
