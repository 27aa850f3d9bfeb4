import type { DefinitionInput } from "@baton/actions";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BROKEN, ORDER_V1, ORDER_V2 } from "./fixtures.js";
import { eventually, mockSession, SIGNED_OUT_SESSION, signedInSession, type Stack, startStack } from "./harness.js";

let stack: Stack;
let parked: string; // order v1, waiting on its external task "approve"
let other: string; // a second parked order, resolved during the live-refresh test
let failed: string; // broken, failed with pre.error

beforeAll(async () => {
  stack = await startStack();
  const { client } = stack;
  for (const definition of [ORDER_V1, ORDER_V2, BROKEN])
    await client.call("putDefinition", { body: definition as DefinitionInput });
  parked = (await client.call("startInstance", { body: { process: "order", version: 1, input: { item: "book" } } })).id;
  other = (await client.call("startInstance", { body: { process: "order", version: 1, input: { item: "lamp" } } })).id;
  failed = (await client.call("startInstance", { body: { process: "broken" } })).id;
  await eventually("both orders parked and broken failed", async () => {
    const list = await client.call("listInstances", { query: { limit: 100 } });
    const byId = new Map(list.items.map((row) => [row.id, row]));
    const ready =
      byId.get(parked)?.phase === "external" &&
      byId.get(other)?.phase === "external" &&
      byId.get(failed)?.status === "failed";
    return ready ? true : undefined;
  });
});

afterAll(async () => {
  await stack?.close();
});

const rowOf = (id: string) => stack.page.locator(`tr[data-instance="${id}"]`);

describe("instance list", () => {
  it("shows every root with its status, and the status filter narrows it", async () => {
    const { page, web } = stack;
    await page.goto(`${web.url}/#/instances`);
    await expect.poll(() => page.locator("tbody tr[data-instance]").count()).toBe(3);
    expect(await rowOf(parked).locator(".status").textContent()).toBe("running");
    expect(await rowOf(failed).locator(".status").textContent()).toBe("failed");
    expect(await rowOf(failed).textContent(), "the error code is part of the row").toContain("pre.error");

    await page.getByRole("group", { name: "Status" }).getByLabel("failed", { exact: true }).check();
    await page.getByRole("button", { name: "Apply filters" }).click();
    await expect.poll(() => page.locator("tbody tr[data-instance]").count()).toBe(1);
    expect(await rowOf(failed).count()).toBe(1);
    await expect.poll(() => page.url(), { message: "the filter is part of the link" }).toContain("status=failed");

    await page.goto(`${web.url}/#/instances?process=order&phase=external`);
    await expect.poll(() => page.locator("tbody tr[data-instance]").count()).toBe(2);
    expect(await page.getByLabel("Process").inputValue(), "the form shows the filters of the link").toBe("order");
  });

  it("names a bad filter instead of listing", async () => {
    const { page, web } = stack;
    await page.goto(`${web.url}/#/instances?task=approve`);
    await expect(page.getByRole("alert").textContent()).resolves.toContain("the task filter needs a process");
  });

  it("refreshes by itself when an instance changes", async () => {
    const { page, web, client } = stack;
    await page.goto(`${web.url}/#/instances`);
    await expect.poll(() => rowOf(other).locator(".status").textContent()).toBe("running");
    await client.call("signalExternalTask", { body: { instance_id: other, task: "approve", result: { ok: true } } });
    await expect.poll(() => rowOf(other).locator(".status").textContent(), { timeout: 15_000 }).toBe("completed");
    expect(await page.locator("tbody tr[data-instance]").count(), "the other rows stay").toBe(3);
  });
});

describe("instance page", () => {
  it("draws the definition with the current task marked, and shows outputs and logs", async () => {
    const { page, web } = stack;
    await page.goto(`${web.url}/#/instances/${parked}`);
    const current = page.locator("svg g.node-current");
    await expect.poll(() => current.getAttribute("data-task")).toBe("approve");
    expect(await current.getAttribute("aria-current")).toBe("step");
    expect(await page.locator("svg g.node").count(), "four tasks, the end node and the raise node").toBe(6);
    expect(
      await page.locator('svg g.edge-switch[data-from="approve"][data-to="ship"]').count(),
      "the switch edge to ship is drawn",
    ).toBe(1);
    expect(await page.getByRole("group", { name: /current task approve/ }).count()).toBe(1);

    const prepare = page.getByRole("figure", { name: "Output of prepare" });
    expect(await prepare.textContent()).toContain('"item": "book"');
    expect(await page.getByRole("figure", { name: "Input" }).textContent()).toContain('"book"');

    const logs = page.locator("table.logs tbody tr");
    await expect.poll(() => logs.count()).toBeGreaterThanOrEqual(3);
    const events = await page.locator("table.logs tbody td.mono").allTextContents();
    expect(events[0], "newest first").toBe("task.started");
    expect(events).toContain("instance.started");

    await page.getByLabel("Level").selectOption("info");
    await expect.poll(() => page.locator("table.logs tbody td.mono").allTextContents()).not.toContain("task.completed");
  });

  it("pauses and resumes from the buttons, and the API agrees", async () => {
    const { page, web, client } = stack;
    await page.goto(`${web.url}/#/instances/${parked}`);
    await page.getByRole("button", { name: "Pause" }).click();
    await expect.poll(() => page.getByRole("status").first().textContent()).toContain("Pause: paused");
    await expect.poll(() => page.locator("dl.facts .status").textContent()).toBe("paused");
    expect((await client.call("getInstance", { params: { id: parked } })).status).toBe("paused");
    expect(await page.getByRole("button", { name: "Pause" }).count(), "a paused instance offers no pause").toBe(0);

    await page.getByRole("button", { name: "Resume" }).click();
    await expect.poll(() => page.locator("dl.facts .status").textContent()).toBe("running");
    expect((await client.call("getInstance", { params: { id: parked } })).status).toBe("running");
  });

  it("shows a failed row's error message in the list, not only on hover", async () => {
    const { page, web, client } = stack;
    const view = await client.call("getInstance", { params: { id: failed } });
    await page.goto(`${web.url}/#/instances?status=failed`);
    await expect.poll(() => rowOf(failed).locator(".error-message").textContent()).toBe(view.error_message);
  });

  it("keeps the log level and mode in the URL across a reload", async () => {
    const { page, web } = stack;
    await page.goto(`${web.url}/#/instances/${parked}`);
    const logs = page.getByRole("region", { name: "Logs" });
    await logs.getByLabel("Level").selectOption("info");
    await logs.getByLabel("this instance only (flat)").check();
    await expect.poll(() => page.url()).toBe(`${web.url}/#/instances/${parked}?log_level=info&flat=true`);
    await page.reload();
    await expect.poll(() => logs.getByLabel("Level").inputValue()).toBe("info");
    expect(await logs.getByLabel("this instance only (flat)").isChecked(), "flat mode survives the reload").toBe(true);
    expect(await page.locator("dl.facts").count(), "the instance page itself still shows").toBe(1);
  });

  it("shows the chosen log mode the moment it is clicked, not a task later when the hashchange event comes", async () => {
    const { page, web } = stack;
    await page.goto("about:blank");
    await page.goto(`${web.url}/#/instances/${parked}`);
    const flat = page.getByRole("region", { name: "Logs" }).getByLabel("this instance only (flat)");
    await flat.waitFor();
    // Read in the same task as the click: the URL-driven radio must not fall back to unchecked
    // until the hashchange event (Playwright's check() reads it right after its click).
    const checkedAfterClick = await flat.evaluate((radio: HTMLInputElement) => {
      radio.click();
      return radio.checked;
    });
    expect(checkedAfterClick).toBe(true);
    await expect.poll(() => page.url()).toBe(`${web.url}/#/instances/${parked}?flat=true`);
    expect(await flat.isChecked(), "and it stays checked once the hashchange event has come").toBe(true);
  });

  it("shows the external wait as times, and every time in one format with a relative part", async () => {
    const { page, web } = stack;
    await page.goto(`${web.url}/#/instances/${parked}`);
    const facts = page.locator("dl.facts");
    const fact = (name: string) => facts.locator("dt", { hasText: name }).locator("xpath=following-sibling::dd[1]");
    await expect.poll(() => fact("Waiting since").count()).toBe(1);
    const relative = /\((just now|\d+ (s|min|h|d) ago)\)$/;
    expect(await fact("Waiting since").textContent()).toMatch(relative);
    expect(await page.getByTestId("wait-deadline").textContent(), "order's approval has no timeout").toBe(
      "none (no timeout)",
    );
    expect(await fact("Claimed by").textContent()).toBe("nobody (claimable now)");
    const created = (await fact("Created").textContent())!;
    expect(created).toMatch(relative);
    const logTime = page.getByRole("region", { name: "Logs" }).locator("time").first();
    await expect.poll(() => logTime.count()).toBe(1);
    const logText = (await logTime.textContent())!;
    expect(logText, "logs use the same format as the rest of the page").toMatch(relative);
    expect(logText, "not a UTC ISO string").not.toMatch(/\d{4}-\d\d-\d\dT/);
  });

  it("offers retry, not pause, on a failed instance and shows its error", async () => {
    const { page, web } = stack;
    await page.goto(`${web.url}/#/instances/${failed}`);
    await expect.poll(() => page.getByRole("button", { name: "Retry" }).count()).toBe(1);
    expect(await page.getByRole("button", { name: "Pause" }).count()).toBe(0);
    expect(await page.locator("dl.facts").textContent()).toContain("pre.error");
    expect(await page.locator("svg g.node-current").getAttribute("data-task")).toBe("call");
    await expect
      .poll(() => page.getByLabel(/override the only_once protection/).count(), {
        message: "call is not only_once: retry offers no force",
      })
      .toBe(0);
  });

  it("shows the output of a completed instance", async () => {
    const { page, web } = stack;
    await page.goto(`${web.url}/#/instances/${other}`);
    const output = page.getByRole("figure", { name: "Instance output" });
    await expect.poll(() => output.textContent()).toContain('"shipped": "lamp"');
  });
});

describe("permissions from the sign-in proxy (GET /auth/session mocked with page.route)", () => {
  const withSession = (body: object) => mockSession(stack.page, body);

  /** A fresh document: the session is read once per page load, and a hash change is not one. */
  async function open(hash: string) {
    await stack.page.goto("about:blank");
    await stack.page.goto(`${stack.web.url}/${hash}`);
  }

  afterAll(async () => {
    await stack.page.unroute("**/auth/session");
  });

  it("hides lifecycle buttons and the tokens page from a reader", async () => {
    const { page } = stack;
    await withSession(signedInSession("reader@example.com", ["read"]));
    await open(`#/instances/${parked}`);
    await expect.poll(() => page.locator("dl.facts .status").textContent()).toBe("running");
    expect(await page.getByRole("button", { name: "Pause" }).count()).toBe(0);
    expect(await page.getByRole("button", { name: "Cancel" }).count()).toBe(0);
    expect(await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Tokens" }).count()).toBe(0);
    expect(await page.locator("header .who").textContent()).toContain("reader@example.com");
  });

  it("shows pause but not upgrade to an operator", async () => {
    const { page } = stack;
    await withSession(signedInSession("op@example.com", ["read", "operate"]));
    await open(`#/instances/${parked}`);
    await expect.poll(() => page.getByRole("button", { name: "Pause" }).count()).toBe(1);
    expect(await page.getByRole("button", { name: "Upgrade" }).count()).toBe(0);
  });

  it("shows the sign-in page with a password form and provider buttons that return to the page asked for when signed out", async () => {
    const { page } = stack;
    await withSession(SIGNED_OUT_SESSION);
    await open(`#/instances/${parked}`);
    await expect.poll(() => page.getByRole("heading", { name: "Sign in to Baton" }).count()).toBe(1);
    expect(await page.getByLabel("Email").count()).toBe(1);
    expect(
      await page.getByRole("link", { name: "Sign in with Corp SSO" }).getAttribute("href"),
      "the provider link carries the page asked for, which the provider round trip would otherwise lose",
    ).toBe(`/auth/login/corp?return_to=${encodeURIComponent(`/#/instances/${parked}`)}`);
    expect(await page.locator("table").count(), "nothing of the API is shown").toBe(0);
  });
});

describe("graph signals", () => {
  it("draws a raise into its own node, the current task of a raised instance in the raise colour, and opens a task from the keyboard", async () => {
    const { web, client } = stack;
    // A page of its own: the permission tests above leave /auth/session mocked on the shared one.
    const page = await stack.browser.newPage();
    const id = (await client.call("startInstance", { body: { process: "order", version: 1, input: { item: "vase" } } }))
      .id;
    await eventually("the order parked", async () =>
      (await client.call("getInstanceDetail", { params: { id } })).phase === "external" ? true : undefined,
    );
    await client.call("signalExternalTask", { body: { instance_id: id, task: "approve", result: { ok: false } } });
    await eventually("the order raised", async () =>
      (await client.call("getInstance", { params: { id } })).status === "raised" ? true : undefined,
    );
    await page.goto(`${web.url}/#/instances/${id}`);
    const current = page.locator("svg g.node-current");
    await expect.poll(() => current.getAttribute("data-task")).toBe("reject");
    expect(await current.getAttribute("class"), "the current node carries the instance's status").toContain(
      "status-raised",
    );
    const fill = await current.locator("rect").evaluate((rect) => getComputedStyle(rect).fill);
    expect(fill, "not the running blue").not.toBe("rgb(230, 239, 252)");
    expect(fill, "the raise colour").toBe("rgb(253, 236, 234)");
    expect(await page.locator('svg g.edge[data-from="reject"][data-to="end"]').count(), "no raise into end").toBe(0);
    expect(await page.locator('svg g.edge[data-from="reject"][data-to="!raise"]').count()).toBe(1);
    expect(await page.locator('svg g.node[data-task="!raise"] text').textContent()).toBe("raise");

    await page.getByText("Branch conditions in full").click();
    expect(
      await page.getByRole("list", { name: "Branch conditions" }).textContent(),
      "a label shortened in the drawing is readable in full without hovering",
    ).toContain("approve → reject (switch): default");
    expect(await page.getByRole("list", { name: "Branch conditions" }).textContent()).toContain(
      "reject → raise (switch): default → raise declined",
    );
    const ship = page.getByRole("button", { name: "ship route: show its definition" });
    await ship.focus();
    expect(await page.evaluate(() => document.activeElement?.getAttribute("data-task"))).toBe("ship");
    await page.keyboard.press("Enter");
    const panel = page.getByRole("region", { name: "Task ship" });
    expect(await panel.textContent()).toContain('"shipped"');
    await page.getByRole("button", { name: "reject route, current task: show its definition" }).click();
    expect(await page.getByRole("region", { name: "Task reject" }).textContent()).toContain(
      "current task, instance raised",
    );
    await page.close();
  });
});
