// The instance list as the operator's home: counts by process and status, the process picker,
// business-key search, the error column and the compact filter bar, against a real API.

import type { DefinitionInput } from "@baton/actions";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { APPROVAL, BROKEN, TICK } from "./fixtures.js";
import { eventually, rowIds, type Stack, startStack } from "./harness.js";

let stack: Stack;
const ticks: string[] = [];
const broken: string[] = [];
let keyed: string; // an approval started with the business key "doc-7"

beforeAll(async () => {
  stack = await startStack();
  const { client } = stack;
  for (const definition of [APPROVAL, BROKEN, TICK])
    await client.call("putDefinition", { body: definition as DefinitionInput });
  for (let i = 0; i < 3; i++) ticks.push((await client.call("startInstance", { body: { process: "tick" } })).id);
  for (let i = 0; i < 2; i++) broken.push((await client.call("startInstance", { body: { process: "broken" } })).id);
  keyed = (await client.call("startInstance", { body: { process: "approval", key: "doc-7", input: { doc: "d7" } } }))
    .id;
  await client.call("startInstance", { body: { process: "approval", key: "doc-8", input: { doc: "d8" } } });
  await eventually("ticks completed, broken failed, approvals parked", async () => {
    const counts = await client.call("countInstances", { query: { by: "process,status" } });
    const n = (process: string, status: string) =>
      counts.groups.find((g) => g.process === process && g.status === status)?.count ?? 0;
    return n("tick", "completed") === 3 && n("broken", "failed") === 2 && n("approval", "running") === 2
      ? true
      : undefined;
  });
});

afterAll(async () => {
  await stack?.close();
});

const summary = () => stack.page.getByRole("table", { name: "Counts by status" });
const summaryCell = (process: string, status: string) =>
  summary().locator(`tr[data-process="${process}"] td[data-status="${status}"]`);

describe("home: is anything wrong?", () => {
  it("counts every process by status, trouble marked, and a count opens the list filtered to it", async () => {
    const { page, web } = stack;
    await page.goto(`${web.url}/#/instances`);
    await expect.poll(() => summaryCell("broken", "failed").textContent()).toBe("2 failed");
    expect(await summaryCell("tick", "completed").textContent()).toBe("3 completed");
    expect(await summaryCell("approval", "running").textContent()).toBe("2 running");
    expect(await summaryCell("*", "failed").getAttribute("class"), "failures are drawn as trouble").toContain(
      "count-bad",
    );
    expect(await summary().locator('tr[data-process="*"] td').first().textContent(), "7 roots in all").toBe("7");

    await summaryCell("broken", "failed").getByRole("link").click();
    await expect.poll(() => rowIds(stack.page).then((ids) => ids.sort())).toEqual([...broken].sort());
    expect(page.url()).toContain("process=broken");
    expect(page.url()).toContain("status=failed");
    expect(await page.getByLabel("Process").inputValue(), "the picker shows the process of the link").toBe("broken");
    expect(await summaryCell("broken", "failed").getAttribute("class"), "the chosen count is marked").toContain(
      "count-selected",
    );
  });

  it("shows each row's error code and message in the Error column, without hovering", async () => {
    const { page, web, client } = stack;
    const row = await client.call("getInstance", { params: { id: broken[0]! } });
    // A fresh document: after the previous test the page already shows this row under another
    // filter, and a hash-only goto would let the checks below read that list while it reloads.
    await page.goto("about:blank");
    await page.goto(`${web.url}/#/instances?process=broken`);
    const cell = page.locator(`tr[data-instance="${broken[0]}"] td`).nth(6);
    await expect.poll(() => cell.textContent()).toContain(row.error_code!);
    expect(await cell.locator(".error-message").isVisible()).toBe(true);
    expect(await cell.locator(".error-message").textContent()).toBe(row.error_message);
  });

  it("picks a process from a list of the processes that have instances", async () => {
    const { page, web } = stack;
    await page.goto(`${web.url}/#/instances`);
    const picker = page.getByLabel("Process");
    await expect
      .poll(() => picker.locator("option").allTextContents())
      .toEqual(["any process", "approval", "broken", "tick"]);
    await picker.selectOption("tick");
    await page.getByRole("button", { name: "Apply filters" }).click();
    await expect.poll(() => rowIds(stack.page).then((ids) => ids.sort())).toEqual([...ticks].sort());
  });

  it("finds instances by business key, and shows the key in its column", async () => {
    const { page, web } = stack;
    await page.goto(`${web.url}/#/instances`);
    await expect.poll(() => page.locator("tbody tr[data-instance]").count()).toBe(7);
    await page.getByLabel("Business key").fill("doc-7");
    await page.getByRole("button", { name: "Apply filters" }).click();
    await expect.poll(() => rowIds(stack.page)).toEqual([keyed]);
    expect(page.url()).toContain("key=doc-7");
    expect(await page.locator(`tr[data-instance="${keyed}"] td`).nth(2).textContent()).toBe("doc-7");

    await page.goto(`${web.url}/#/instances?key=nobody`);
    await expect.poll(() => page.getByText("No instance matches these filters.").count()).toBe(1);
  });

  it("keeps the bar compact: rare filters fold away, and a link that uses one opens them", async () => {
    const { page, web } = stack;
    await page.goto(`${web.url}/#/instances`);
    const more = page.locator("details.more-filters");
    await expect.poll(() => page.getByLabel("Business key").isVisible()).toBe(true);
    expect(await more.getAttribute("open"), "folded by default").toBeNull();
    expect(await page.getByLabel("Version").isVisible()).toBe(false);
    const barHeight = await page.getByRole("form", { name: "Instance filters" }).evaluate((f) => f.clientHeight);
    expect(barHeight, "the bar takes a few lines, not a third of the screen").toBeLessThan(140);

    await page.goto(`${web.url}/#/instances?process=tick&version=1`);
    await expect.poll(() => page.getByLabel("Version").isVisible()).toBe(true);
    expect(await page.getByLabel("Version").inputValue()).toBe("1");
  });
});
