import type { DefinitionInput } from "@baton/actions";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TICK } from "./fixtures.js";
import { eventually, type Stack, startStack } from "./harness.js";

let stack: Stack;

beforeAll(async () => {
  stack = await startStack();
  await stack.client.call("putDefinition", { body: TICK as DefinitionInput });
  await stack.client.call("putSchedule", {
    params: { name: "hourly-tick" },
    body: { process: "tick", cron: ["0 * * * *"], time_zone: "Europe/Berlin" },
  });
});

afterAll(async () => {
  await stack?.close();
});

const button = (name: string) => stack.page.getByRole("button", { name, exact: true });

describe("the schedules page", () => {
  it("lists next fire times, triggers a fire, shows it with its instance and outcome, and pauses the schedule", async () => {
    const { page, web, client } = stack;
    await page.goto(`${web.url}/#/schedules`);
    const row = page.locator('tr[data-schedule="hourly-tick"]');
    await expect.poll(() => row.textContent()).toContain("tick (latest)");
    expect(await row.textContent()).toContain("0 * * * * (Europe/Berlin)");
    expect(await row.locator("li").count(), "the next fire times").toBe(3);

    await button("Trigger hourly-tick").click();
    await expect.poll(() => row.getByRole("status").textContent()).toMatch(/^fired: started [0-9a-f-]{36}$/);
    const fired = (await row.getByRole("status").textContent())!.split(" ").at(-1)!;

    await button("hourly-tick").click();
    const fires = page.getByRole("region", { name: "Last fires of hourly-tick" });
    await expect.poll(() => fires.locator("tbody tr").count()).toBe(1);
    expect(await fires.locator("tbody tr").textContent()).toContain("trigger");
    expect(await fires.getByRole("link", { name: fired }).count(), "the fire links its instance").toBe(1);
    await eventually("the instance completed", async () =>
      (await client.call("getInstance", { params: { id: fired } })).status === "completed" ? true : undefined,
    );

    await button("Pause hourly-tick").click();
    await expect.poll(() => button("Resume hourly-tick").count()).toBe(1);
    expect((await client.call("getSchedule", { params: { name: "hourly-tick" } })).paused, "the API agrees").toBe(true);
  });

  it("warns in the promote preview when a schedule bound to the target channel would start a version that refuses its input", async () => {
    const { page, web, client } = stack;
    await client.call("putDefinition", {
      body: {
        ...TICK,
        input_schema: { type: "object", properties: { n: { type: "integer" } }, required: ["n"] },
      } as DefinitionInput,
    });
    await client.call("setChannel", { body: { name: "tick", channel: "stable", version: 1 } });
    await client.call("setChannel", { body: { name: "tick", channel: "beta", version: 2 } });
    await client.call("putSchedule", {
      params: { name: "stable-tick" },
      body: { process: "tick", channel: "stable", every: "1h", paused: true },
    });
    await page.goto(`${web.url}/#/channels`);
    const form = page.getByRole("form", { name: "Promote a channel" });
    await form.getByLabel("Promote from").fill("beta");
    await form.getByLabel("to", { exact: true }).fill("stable");
    await form.getByRole("button", { name: "Preview" }).click();
    const alert = page.getByRole("alert", { name: "Schedule warnings" });
    await expect.poll(() => alert.textContent()).toContain('schedule "stable-tick" would start version 2 of "tick"');
  });
});
