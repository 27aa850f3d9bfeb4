import type { DefinitionInput } from "@baton/actions";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { APPROVAL, TICK, TICKS } from "./fixtures.js";
import { eventually, rowIds, type Stack, startStack } from "./harness.js";

let stack: Stack;
/** Roots that stay running (the engine never claims them before the test reads the list). */
const MANY = { name: "many", tasks: [{ id: "later", action: { type: "delay", for: "1d" } }] };
const ticks: string[] = []; // 25 completed "tick" roots: more than the default page of 20

beforeAll(async () => {
  // The lowest count bound (docs/api.md "Bounded counts"), so a list of 125 passes it.
  stack = await startStack(["--limit-page-count", "100"]);
  const { client } = stack;
  for (const definition of [APPROVAL, TICK, TICKS, MANY])
    await client.call("putDefinition", { body: definition as DefinitionInput });
  for (let i = 0; i < 25; i++) ticks.push((await client.call("startInstance", { body: { process: "tick" } })).id);
  for (let i = 0; i < 125; i++) await client.call("startInstance", { body: { process: "many" } });
  await eventually("the 25 tick instances completed", async () => {
    const list = await client.call("listInstances", { query: { process: "tick", status: "completed", limit: 100 } });
    return list.items.length === 25 ? true : undefined;
  });
});

afterAll(async () => {
  await stack?.close();
});

/** The list filtered to the 25 tick instances, at its first page of 20; the pager. */
async function openTicks() {
  const { page, web } = stack;
  await page.goto(`${web.url}/#/instances?process=tick`);
  const pager = page.getByRole("navigation", { name: "Instance pages" });
  await expect.poll(() => pager.locator("span").textContent()).toBe("1–20 of 25");
  return pager;
}

describe("instance list pagination", () => {
  it("says 'more than' when the list runs past the server's count bound", async () => {
    const { page, web } = stack;
    await page.goto(`${web.url}/#/instances?process=many`);
    const pager = page.getByRole("navigation", { name: "Instance pages" });
    // 20 shown, and items_after stopped at the bound of 100: at least 121 in all.
    await expect.poll(() => pager.locator("span").textContent()).toBe("1–20 of more than 120");
  });

  it("pages through more rows than fit on one page: next and previous show different rows, none twice, none lost", async () => {
    const { client } = stack;
    const pager = await openTicks();
    const first = await rowIds(stack.page);
    expect(first, "the default page holds 20 rows").toHaveLength(20);
    expect(
      await pager.getByRole("button", { name: "← Previous" }).isDisabled(),
      "nothing comes before the first page",
    ).toBe(true);

    await pager.getByRole("button", { name: "Next →" }).click();
    await expect.poll(() => pager.locator("span").textContent()).toBe("21–25 of 25");
    const second = await rowIds(stack.page);
    expect(second).toHaveLength(5);
    expect(
      second.filter((id) => first.includes(id)),
      "no row of the first page comes back on the second",
    ).toEqual([]);
    expect(new Set([...first, ...second]), "the two pages together are exactly the 25 instances").toEqual(
      new Set(ticks),
    );
    expect(await pager.getByRole("button", { name: "Next →" }).isDisabled(), "the last page has no next").toBe(true);

    const api = await client.call("listInstances", { query: { process: "tick" } });
    expect(first, "the first page is the API's first page, newest first").toEqual(api.items.map((row) => row.id));

    await pager.getByRole("button", { name: "← Previous" }).click();
    await expect.poll(() => pager.locator("span").textContent()).toBe("1–20 of 25");
    expect(await rowIds(stack.page), "previous brings back the same first page").toEqual(first);
  });

  it("shows up to 50 rows at once when asked, and a changed filter starts again at the first page", async () => {
    const { page } = stack;
    const pager = await openTicks();
    await pager.getByRole("button", { name: "Next →" }).click();
    await expect.poll(() => pager.locator("span").textContent()).toBe("21–25 of 25");

    await page.getByLabel("Per page").selectOption("50");
    await expect.poll(() => pager.locator("span").textContent()).toBe("1–25 of 25");
    expect(new Set(await rowIds(stack.page))).toEqual(new Set(ticks));
  });
});

describe("error code filter", () => {
  it("says the error code is matched exactly or by a prefix, instead of silently matching nothing for a wildcard inside it", async () => {
    const { page, web } = stack;
    await page.goto(`${web.url}/#/instances?error_code=http.%253`);
    await expect
      .poll(() => page.getByRole("alert").textContent())
      .toContain("matched exactly (http.503), or as a prefix");
    expect(await page.locator("tbody tr[data-instance]").count(), "nothing is listed as if it matched").toBe(0);
  });
});

describe("list state in the URL", () => {
  it("keeps the page position and page size across a reload", async () => {
    const { page } = stack;
    const pager = await openTicks();
    await pager.getByRole("button", { name: "Next →" }).click();
    await expect.poll(() => pager.locator("span").textContent()).toBe("21–25 of 25");
    const second = await rowIds(stack.page);
    await expect.poll(() => page.url(), { message: "the cursor is in the URL" }).toMatch(/[?&]after=/);
    await page.reload();
    await expect.poll(() => pager.locator("span").textContent()).toBe("21–25 of 25");
    expect(await rowIds(stack.page), "the reload shows the same page").toEqual(second);

    await page.getByLabel("Per page").selectOption("50");
    await expect.poll(() => pager.locator("span").textContent()).toBe("1–25 of 25");
    await expect.poll(() => page.url()).toMatch(/[?&]limit=50/);
    await page.reload();
    await expect.poll(() => pager.locator("span").textContent()).toBe("1–25 of 25");
    expect(await page.getByLabel("Per page").inputValue(), "the page size survives the reload").toBe("50");
    expect(await page.getByLabel("Process").inputValue()).toBe("tick");
  });
});

describe("external tasks waiting", () => {
  it("lists an instance parked on an external task with its task, and drops it once a worker resolves it", async () => {
    const { page, web, client } = stack;
    const first = (await client.call("startInstance", { body: { process: "approval", input: { doc: "contract-1" } } }))
      .id;
    await eventually("the first approval parked", async () =>
      (await client.call("getInstanceDetail", { params: { id: first } })).phase === "external" ? true : undefined,
    );
    const second = (await client.call("startInstance", { body: { process: "approval", input: { doc: "contract-2" } } }))
      .id;

    await page.goto(`${web.url}/#/external`);
    const row = (id: string) => page.locator(`tr[data-instance="${id}"]`);
    await expect.poll(() => row(second).count(), { timeout: 15_000 }).toBe(1);
    expect(await row(first).count()).toBe(1);
    const cells = await row(first).locator("td").allTextContents();
    expect(cells[0], "the row names the external task it waits on").toBe("review");
    expect(cells[1], "and its process").toContain("approval");
    expect(cells[2], "and the instance").toContain(first);
    expect(cells[4], "and the worker input").toBe('{"doc":"contract-1"}');
    expect(
      await page.locator("tbody tr[data-instance]").count(),
      "the completed tick instances are not waiting on anything",
    ).toBe(2);

    // A worker claims the oldest waiting task (FIFO by park time): the first approval.
    const claim = await client.call("claimExternalTasks", { body: { worker_id: "ui-test", process: "approval" } });
    expect(claim.items.map((t) => [t.task, t.external_input])).toEqual([["review", { doc: "contract-1" }]]);
    await client.call("resolveExternalTask", { body: { token: claim.items[0]!.token, result: { approved: true } } });

    await expect
      .poll(() => row(first).count(), {
        message: "the page refreshes by itself and drops the resolved task",
        timeout: 15_000,
      })
      .toBe(0);
    expect(await row(second).count(), "the other task still waits").toBe(1);

    await row(second).getByRole("link", { name: second }).click();
    await expect
      .poll(() => page.locator("svg g.node-current").getAttribute("data-task"), {
        message: "the row leads to the instance page, on the waiting task",
      })
      .toBe("review");
    expect((await client.call("getInstance", { params: { id: first } })).status).toBe("completed");
  });

  it("says so when no instance waits on an external task", async () => {
    const { page, web, client } = stack;
    const waiting = await client.call("listInstances", { query: { phase: "external", children: true } });
    for (const row of waiting.items)
      await client.call("signalExternalTask", { body: { instance_id: row.id, task: row.task, result: null } });
    await page.goto(`${web.url}/#/external`);
    await expect
      .poll(() => page.getByText("No instance is waiting on an external task.").count(), { timeout: 15_000 })
      .toBe(1);
    expect(
      (await client.call("listInstances", { query: { phase: "external", children: true } })).items,
      "the API agrees",
    ).toEqual([]);
  });
});

describe("instance filter form", () => {
  it("keeps what the operator typed and ticked across list refreshes until Apply is pressed", async () => {
    const { page } = stack;
    const _pager = await openTicks();
    const form = page.getByRole("form", { name: "Instance filters" });
    await form.getByLabel("Error code").fill("http.500");
    await form.getByLabel("failed", { exact: true }).check();
    // Two refreshes of the list re-render the page twice while the draft is unapplied.
    for (let i = 0; i < 2; i++)
      await page.waitForResponse((r) => r.url().includes("/api/instances?") && r.request().method() === "GET");
    await page.evaluate(() => new Promise((resolve) => requestAnimationFrame(resolve)));
    expect(await form.getByLabel("Error code").inputValue(), "the typed error code survives the refreshes").toBe(
      "http.500",
    );
    expect(await form.getByLabel("failed", { exact: true }).isChecked(), "the ticked status survives too").toBe(true);
    expect(await form.getByLabel("Process").inputValue()).toBe("tick");
  });
});

describe("live refresh", () => {
  it("stops polling once the instance and every child shown are settled", async () => {
    const { page, web, client } = stack;
    const id = (await client.call("startInstance", { body: { process: "ticks" } })).id;
    const settled = await eventually("the ticks tree settled", async () => {
      const view = await client.call("getInstance", { params: { id } });
      return ["running", "failing"].includes(view.status) ? undefined : view;
    });
    expect([settled.status, settled.error_message]).toEqual(["completed", undefined]);
    // A fresh document, so that its network idle below is reached after this page's loads (after
    // a hash-only goto it would be the previous page's, reached long before).
    await page.goto("about:blank");
    await page.goto(`${web.url}/#/instances/${id}`);
    const children = page.getByRole("list", { name: "Children" });
    await expect.poll(() => children.locator("li[data-child]").getByText("completed").count()).toBe(3);
    // Let the answers that made the page settle arrive, then listen through more than two poll periods.
    await page.waitForLoadState("networkidle");
    const requests: string[] = [];
    const onRequest = (request: { url: () => string }) => {
      if (request.url().includes("/api/")) requests.push(request.url());
    };
    page.on("request", onRequest);
    await page.waitForTimeout(7_000);
    page.off("request", onRequest);
    expect(requests, "a completed tree page reads nothing more").toEqual([]);
  });
});
