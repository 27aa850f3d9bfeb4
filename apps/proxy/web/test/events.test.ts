import type { DefinitionInput } from "@baton/actions";
import { json, startUpstream, type Upstream } from "@baton/testkit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TICK } from "./fixtures.js";
import { eventually, type Stack, startStack } from "./harness.js";

let stack: Stack;
let receiver: Upstream;

beforeAll(async () => {
  receiver = await startUpstream((_r, res) => json(res, 200, {}));
  stack = await startStack();
  await stack.client.call("putDefinition", { body: TICK as DefinitionInput });
  await stack.client.call("putSubscription", {
    params: { name: "ticks-done" },
    body: { url: `${receiver.url}/e`, events: ["instance.completed"], process: "tick" },
  });
});

afterAll(async () => {
  await stack?.close();
  await receiver?.close();
});

describe("the events page", () => {
  it("shows a subscription's delivery log and redelivers an event with its webhook-id", async () => {
    const { page, web, client } = stack;
    await client.call("startInstance", { body: { process: "tick" } });
    await eventually("the completion delivered", async () => (receiver.requests.length >= 1 ? true : undefined));
    await page.goto(`${web.url}/#/events`);
    const row = page.locator('tr[data-subscription="ticks-done"]');
    await expect.poll(() => row.textContent()).toContain("instance.completed");
    await page.getByRole("button", { name: "ticks-done", exact: true }).click();
    const log = page.getByRole("region", { name: "Deliveries of ticks-done" });
    await expect.poll(() => log.locator("tbody tr").count()).toBe(1);
    expect(await log.locator("tbody tr").textContent()).toContain("delivered");
    const eventId = receiver.requests[0].headers["webhook-id"] as string;
    await log.getByRole("button", { name: `Redeliver ${eventId}` }).click();
    await expect.poll(() => log.getByRole("status").textContent()).toBe("1 queued");
    await eventually("the event sent again", async () => (receiver.requests.length >= 2 ? true : undefined));
    expect(receiver.requests[1].headers["webhook-id"]).toBe(eventId);
  });
});
