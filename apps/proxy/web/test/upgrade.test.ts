// The Upgrade form runs the compatibility check when a version is chosen and shows the
// blocking issues before upgrading, against a real API.

import type { DefinitionInput } from "@baton/actions";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { axeViolations, describeViolations } from "./axe.js";
import { ORDER_V1, ORDER_V2, ORDER_V3_WITHOUT_APPROVE } from "./fixtures.js";
import { eventually, type Stack, startStack } from "./harness.js";

let stack: Stack;

beforeAll(async () => {
  stack = await startStack();
  const { client } = stack;
  for (const definition of [ORDER_V1, ORDER_V2, ORDER_V3_WITHOUT_APPROVE])
    await client.call("putDefinition", { body: definition as DefinitionInput });
});

afterAll(async () => {
  await stack?.close();
});

async function parkedOrder(item: string): Promise<string> {
  const { client } = stack;
  const id = (await client.call("startInstance", { body: { process: "order", version: 1, input: { item } } })).id;
  await eventually(`order ${item} parked`, async () =>
    (await client.call("getInstanceDetail", { params: { id } })).phase === "external" ? true : undefined,
  );
  return id;
}

describe("upgrade with the compatibility check", () => {
  it("says a compatible version is compatible, then upgrades", async () => {
    const { page, web, client } = stack;
    const id = await parkedOrder("cup");
    await page.goto(`${web.url}/#/instances/${id}`);
    const form = page.getByRole("form", { name: "Upgrade" });
    await form.getByLabel("Upgrade from v1 to").selectOption("2");
    await expect
      .poll(() => form.getByTestId("upgrade-compat").textContent())
      .toContain("Compatible: an instance on any task of v1 can continue under v2");
    expect(await form.locator("[data-blocker]").count()).toBe(0);
    await form.getByRole("button", { name: "Upgrade", exact: true }).click();
    await expect.poll(() => form.getByRole("status").textContent()).toBe("Upgraded to version 2 (1 instance moved).");
    expect((await client.call("getInstance", { params: { id } })).version).toBe(2);
  });

  it("lists the blocking issues before upgrading, flags the one on this instance's task, and shows the API's refusal", async () => {
    const { page, web, client } = stack;
    const id = await parkedOrder("jug");
    await page.goto(`${web.url}/#/instances/${id}`);
    const form = page.getByRole("form", { name: "Upgrade" });
    await form.getByLabel("Upgrade from v1 to").selectOption("3");
    await expect.poll(() => form.getByTestId("upgrade-compat").textContent()).toContain("Not compatible");
    const ours = form.locator("[data-blocker]").filter({ has: page.locator("td", { hasText: /^yes$/ }) });
    expect(await ours.count(), "a blocker concerns approve, where the instance sits").toBeGreaterThan(0);
    expect(await ours.first().getAttribute("data-blocker")).toMatch(/^tasks\.approve/);
    expect(await page.getByRole("button", { name: "Upgrade", exact: true }).count(), "no plain Upgrade").toBe(0);
    const serious = (await axeViolations(page)).filter((v) => v.impact === "serious" || v.impact === "critical");
    expect(describeViolations(serious), "axe with the blockers shown").toBe("");

    await form.getByRole("button", { name: "Upgrade anyway" }).click();
    await expect.poll(() => form.getByRole("alert").textContent()).toContain('sits on task "approve"');
    expect((await client.call("getInstance", { params: { id } })).version, "the instance stays on version 1").toBe(1);
  });
});
