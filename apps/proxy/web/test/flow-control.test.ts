// The instance page says why a running instance does not move (docs/ui.md "Instance"): the
// flow-control slot it waits for, with its scope, key and limit (docs/flow-control.md).

import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Stack, startStack } from "./harness.js";

let stack: Stack;

beforeAll(async () => {
  // --poll 0: only the ticks below move instances, so the second one is still waiting when shown.
  stack = await startStack(["--poll", "0"]);
  await stack.client.call("putDefinition", {
    body: {
      name: "one_per_customer",
      input_schema: { type: "object", properties: { customer: { type: "string" } }, required: ["customer"] },
      concurrency: { key: "$: input.customer", limit: 1 },
      tasks: [{ id: "hold", action: { type: "delay", for: "1h" } }],
    },
  });
});

afterAll(async () => {
  await stack?.close();
});

describe("an instance waiting for flow control", () => {
  it("shows the slot it waits for: scope, key and limit", async () => {
    for (let i = 0; i < 2; i++)
      await stack.client.call("startInstance", { body: { process: "one_per_customer", input: { customer: "ada" } } });
    await fetch(`${stack.api.url}/api/tick`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: "{}",
    });
    await fetch(`${stack.api.url}/api/tick`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: "{}",
    });
    const page = await stack.browser.newPage();
    const waiting = await stack.client.call("listInstances", { query: { waiting_for: "concurrency" } });
    expect(waiting.items).toHaveLength(1);
    await page.goto(`${stack.web.url}/#/instances/${waiting.items[0].id}`);
    const wait = page.getByTestId("flow-wait");
    await wait.waitFor();
    const text = await wait.textContent();
    expect(text).toContain("a concurrency slot of process:one_per_customer");
    expect(text).toContain("ada");
    expect(text).toContain("limit 1");
    await page.close();
  });
});
