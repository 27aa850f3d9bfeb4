import type { DefinitionInput } from "@baton/actions";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ORDER_V1, ORDER_V2 } from "./fixtures.js";
import { type Stack, startStack } from "./harness.js";

let stack: Stack;

beforeAll(async () => {
  stack = await startStack();
  const { client } = stack;
  for (const definition of [ORDER_V1, ORDER_V2])
    await client.call("putDefinition", { body: definition as DefinitionInput });
  await client.call("setChannel", { body: { name: "order", channel: "stable", version: 1 } });
  await client.call("setChannel", { body: { name: "order", channel: "beta", version: 2 } });
});

afterAll(async () => {
  await stack?.close();
});

describe("definitions", () => {
  it("lists the versions of a process and shows a version's canonical JSON", async () => {
    const { page, web } = stack;
    await page.goto(`${web.url}/#/definitions`);
    await expect.poll(() => page.locator("tbody tr").count()).toBe(2);
    await page.getByRole("link", { name: "v1", exact: true }).click();
    const json = page.getByRole("figure", { name: "Canonical JSON of order v1" });
    await expect.poll(() => json.count()).toBe(1);
    const text = (await json.locator("pre").textContent()) ?? "";
    expect(JSON.parse(text).tasks.map((t: { id: string }) => t.id)).toEqual(["prepare", "approve", "ship", "reject"]);
    expect(await page.locator("svg g.node").count(), "the version is drawn as a graph too (tasks, end, raise)").toBe(6);
  });

  it("diffs two versions line by line, showing the changed lines", async () => {
    const { page, web } = stack;
    await page.goto(`${web.url}/#/definitions/order`);
    await page.getByRole("button", { name: "Compare" }).click();
    await expect.poll(() => page.url()).toContain("compare?from=1&to=2");
    const added = page.locator('table.diff tr[data-kind="added"]');
    await expect.poll(() => added.count()).toBeGreaterThan(0);
    const addedText = (await added.allTextContents()).join("\n");
    expect(addedText).toContain('"goto": "$notify"');
    expect(addedText).toContain('"id": "notify"');
    const removedText = (await page.locator('table.diff tr[data-kind="removed"]').allTextContents()).join("\n");
    expect(removedText).toContain('"goto": "$ship"');
    expect(removedText, "unchanged lines are not marked").not.toContain('"id": "prepare"');
  });

  it("checks compatibility between the two versions", async () => {
    const { page, web } = stack;
    await page.goto(`${web.url}/#/definitions/order/compare?from=1&to=2`);
    await page.getByRole("button", { name: "Check compatibility" }).click();
    const report = page.locator(".compat");
    await expect.poll(() => report.textContent()).toContain("Compatible");
    expect(await report.textContent()).toContain("tasks.notify");
  });

  it("shows the API's error for a version that does not exist", async () => {
    const { page, web } = stack;
    await page.goto(`${web.url}/#/definitions/order/9`);
    await expect.poll(() => page.getByRole("alert").textContent()).toMatch(/order.*9/);
  });
});

describe("channels", () => {
  it("promotes one channel onto another, and the API agrees", async () => {
    const { page, web, client } = stack;
    await page.goto(`${web.url}/#/channels`);
    const stable = page.locator('tr[data-channel="stable"][data-process="order"]');
    await expect.poll(() => stable.textContent()).toContain("v1");
    await page.getByLabel("Promote from").fill("beta");
    await page.getByLabel("to", { exact: true }).fill("stable");
    await page.getByRole("button", { name: "Preview" }).click();
    const preview = page.getByRole("region", { name: "Promote preview" });
    await expect.poll(() => preview.textContent()).toContain("order: stable to v2 (was v1)");
    // Issue 34: the diff and the compatibility check a step away, and who stays behind.
    const change = preview.locator('li[data-change="order"]');
    expect(await change.getByRole("link").getAttribute("href")).toBe("#/definitions/order/compare?from=1&to=2");
    const live = await stack.client.call("countInstances", {
      query: { process: "order", version: 1, status: "running,pausing,paused,failing" },
    });
    await expect
      .poll(() => change.getByTestId("live-on-previous").textContent())
      .toBe(` · ${live.total} live ${live.total === 1 ? "instance stays" : "instances stay"} on v1`);
    expect(
      (await client.call("listChannels", { query: { name: "order" } })).items.find((c) => c.channel === "stable")
        ?.version,
      "a preview changes nothing",
    ).toBe(1);
    await preview.getByRole("button", { name: "Yes, move 1 pointer" }).click();
    await expect.poll(() => page.getByRole("status").textContent()).toContain("order: stable now at v2 (was v1)");
    await expect.poll(() => stable.textContent()).toContain("v2");
    const channels = await client.call("listChannels", { query: { name: "order" } });
    expect(channels.items.find((c) => c.channel === "stable")?.version).toBe(2);
  });

  it("says that a target channel nobody points at yet is new, naming the ones that exist", async () => {
    const { page, web } = stack;
    await page.goto("about:blank");
    await page.goto(`${web.url}/#/channels`);
    await page.getByLabel("Promote from").fill("beta");
    await page.getByLabel("to", { exact: true }).fill("stabel");
    await page.getByRole("button", { name: "Preview" }).click();
    const preview = page.getByRole("region", { name: "Promote preview" });
    await expect
      .poll(() => preview.getByTestId("new-channel").textContent())
      .toMatch(/^stabel is a new channel: .* The channels that exist: .*beta.*stable/);
    await preview.getByRole("button", { name: "Back" }).click();
  });

  it("lists no unchanged pointer as a change", async () => {
    const { page, web } = stack;
    await page.goto(`${web.url}/#/channels`);
    await page.getByLabel("Promote from").fill("beta");
    await page.getByLabel("to", { exact: true }).fill("stable");
    await page.getByRole("button", { name: "Preview" }).click();
    const preview = page.getByRole("region", { name: "Promote preview" });
    await expect.poll(() => preview.textContent()).toContain("Nothing would change");
    expect(await preview.textContent()).not.toContain("(was v2)");
  });

  it("shows an error when promoting from an unknown channel", async () => {
    const { page, web } = stack;
    await page.goto(`${web.url}/#/channels`);
    await page.getByLabel("Promote from").fill("nope");
    await page.getByLabel("to", { exact: true }).fill("stable");
    await page.getByRole("button", { name: "Preview" }).click();
    await expect.poll(() => page.getByRole("alert").textContent()).toContain("nope");
  });
});

describe("tokens", () => {
  it("shows a new token's secret once, lists the token without it, and revokes it", async () => {
    const { page, web, client } = stack;
    await page.goto(`${web.url}/#/tokens`);
    await page.getByLabel("Label").fill("ci deploys");
    await page.getByRole("group", { name: "Permissions" }).getByLabel("deploy").check();
    await page.getByRole("button", { name: "Create token" }).click();
    const secret = page.locator(".secret-value");
    await expect.poll(() => secret.textContent()).toMatch(/^svc_sk_/);
    const value = (await secret.textContent())!;
    expect(await page.getByRole("status", { name: "New token secret" }).textContent()).toContain("only once");

    const tokens = await client.call("listTokens");
    const created = tokens.items.find((t) => t.label === "ci deploys");
    expect(created?.perms).toEqual(["read", "deploy"]);
    const row = page.locator(`tr[data-token="${created!.id}"]`);
    await expect.poll(() => row.textContent()).toContain("read, deploy");

    await page.getByRole("button", { name: "Done" }).click();
    expect(await page.content(), "the secret is gone once dismissed").not.toContain(value);
    await page.reload();
    await expect.poll(() => row.count()).toBe(1);
    expect(await page.content(), "the secret never comes back").not.toContain(value);

    await row.getByRole("button", { name: "Revoke ci deploys" }).click();
    const focused = () => page.evaluate(() => document.activeElement?.outerHTML.slice(0, 120) ?? "");
    expect(await focused(), "the confirmation takes focus on its safe choice").toContain(">Keep<");
    await row.getByRole("button", { name: "Keep" }).click();
    expect(await focused(), "Keep returns focus to the Revoke button").toContain('aria-label="Revoke ci deploys"');
    await row.getByRole("button", { name: "Revoke ci deploys" }).click();
    await row.getByRole("button", { name: "Yes, revoke" }).click();
    await expect.poll(() => row.textContent()).toContain("revoked");
    expect(await focused(), "focus lands on the outcome, not on <body>").toContain("revoke-outcome");
    expect(await page.locator(".revoke-outcome").textContent()).toBe("Token ci deploys revoked.");
    expect((await client.call("listTokens")).items.find((t) => t.id === created!.id)?.revoked_at).toBeTruthy();
  });

  it("drops a token's secret from the banner when that token is revoked", async () => {
    const { page, web } = stack;
    await page.goto(`${web.url}/#/tokens`);
    await page.getByLabel("Label").fill("short lived");
    await page.getByRole("button", { name: "Create token" }).click();
    const secret = page.locator(".secret-value");
    await expect.poll(() => secret.textContent()).toMatch(/^svc_sk_/);
    const row = page.locator("tr", { hasText: "short lived" });
    await row.getByRole("button", { name: "Revoke short lived" }).click();
    await row.getByRole("button", { name: "Yes, revoke" }).click();
    await expect.poll(() => row.textContent()).toContain("revoked");
    expect(await secret.count(), "the revoked token's secret is gone").toBe(0);
  });

  it("names the missing label instead of creating a token", async () => {
    const { page, web } = stack;
    await page.goto(`${web.url}/#/tokens`);
    await page.getByLabel("Label").fill("   ");
    await page.getByRole("button", { name: "Create token" }).click();
    await expect.poll(() => page.getByRole("alert").textContent()).toContain("label");
  });
});
