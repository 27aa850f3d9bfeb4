// The instance page's execution timeline (from its log entries), the path taken on the graph,
// and the status filter on children, against a real API and a testkit upstream.

import type { DefinitionInput } from "@baton/actions";
import { json, startUpstream, type Upstream } from "@baton/testkit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BROKEN, LEAF, RISKY } from "./fixtures.js";
import { eventually, type Stack, startStack } from "./harness.js";

let stack: Stack;
let upstream: Upstream; // answers 503 twice, then 200
let calls = 0;

/** A routing task, a fetch retried on 5xx, a routing task: the path is prepare → charge → done → end. */
function flaky(url: string) {
  return {
    name: "flaky",
    tasks: [
      { id: "prepare", output: { n: 1 } },
      {
        id: "charge",
        action: { type: "fetch", method: "get", url: `${url}/charge` },
        on_error: [{ code: "http.5%", retry: { retries: 3, delay: "100ms" } }],
        switch: [{ case: "self.status == 418", goto: "$skipped" }, { goto: "$done" }],
      },
      { id: "skipped", output: { never: true }, switch: "end" },
      { id: "done", output: { ok: true } },
    ],
  };
}

/** A routing task that loops `n` times: one `task.completed` log entry per visit, a long history. */
const SPIN = {
  name: "spin",
  input_schema: { type: "object", properties: { n: { type: "integer" } }, required: ["n"] },
  tasks: [
    {
      id: "step",
      output: { i: "$: (self.previous.i ?? 0) + 1" },
      switch: [{ case: "self.output.i < input.n", goto: "$step" }, { goto: "end" }],
    },
  ],
};

beforeAll(async () => {
  upstream = await startUpstream((_request, res) => {
    calls += 1;
    if (calls <= 2) json(res, 503, { error: "down" });
    else json(res, 200, { receipt: "r-1" });
  });
  stack = await startStack();
  for (const definition of [flaky(upstream.url), BROKEN, LEAF, RISKY, SPIN])
    await stack.client.call("putDefinition", { body: definition as DefinitionInput });
});

afterAll(async () => {
  await stack?.close();
  await upstream?.close();
});

describe("timeline", () => {
  it("lists each visit with its attempts, HTTP status, error codes and retry times, and marks the path on the graph", async () => {
    const { page, web, client } = stack;
    const id = (await client.call("startInstance", { body: { process: "flaky" } })).id;
    await eventually("flaky completed", async () =>
      (await client.call("getInstance", { params: { id } })).status === "completed" ? true : undefined,
    );
    await page.goto(`${web.url}/#/instances/${id}`);
    const table = page.getByRole("table", { name: "Execution timeline" });
    await expect.poll(() => table.locator("tbody tr").count()).toBe(5);
    const rows = await table
      .locator("tbody tr")
      .evaluateAll((trs) => trs.map((tr) => [tr.getAttribute("data-task"), tr.getAttribute("data-outcome")]));
    expect(rows).toEqual([
      ["prepare", "ran"],
      ["charge", "failed"],
      ["charge", "failed"],
      ["charge", "completed"],
      ["done", "ran"],
    ]);
    const charge = table.locator('tbody tr[data-task="charge"]');
    expect(await charge.nth(0).locator("th").textContent(), "one visit, numbered once").toBe("2. charge");
    expect(await charge.nth(1).locator("th").textContent()).toBe("");
    expect(await charge.nth(0).locator("td").nth(1).textContent()).toBe("failed · http.503");
    const host = new URL(upstream.url).host;
    expect(await charge.nth(0).locator("td").nth(3).textContent(), "the call's host and latency").toMatch(
      new RegExp(`^${host.replace(/\./g, "\\.")} in \\d+(\\.\\d)? (ms|s)$`),
    );
    expect(await charge.nth(0).locator("td").nth(4).textContent()).toMatch(/^retry 1 at /);
    expect(await charge.nth(1).locator("td").nth(4).textContent()).toMatch(/^retry 2 at /);
    expect(await charge.nth(2).locator("td").nth(1).textContent()).toBe("completed · HTTP 200");
    expect(await charge.nth(2).locator("td").nth(2).textContent(), "a duration").toMatch(/^\d+(\.\d)? (ms|s)$/);

    const visited = await page
      .locator("svg g.node-visited")
      .evaluateAll((nodes) => nodes.map((n) => n.getAttribute("data-task")));
    expect(visited.sort(), "the tasks it went through and the end, not the skipped one").toEqual([
      "charge",
      "done",
      "end",
      "prepare",
    ]);
    const taken = await page
      .locator("svg g.edge-taken")
      .evaluateAll((edges) => edges.map((e) => `${e.getAttribute("data-from")}>${e.getAttribute("data-to")}`));
    expect(taken.sort()).toEqual(["charge>done", "done>end", "prepare>charge"]);
  });

  it("reads a long history 1,000 log entries at a time: the first 1,000, then the rest when asked", async () => {
    const { page, web, client } = stack;
    const id = (await client.call("startInstance", { body: { process: "spin", input: { n: 1150 } } })).id;
    await eventually(
      "spin completed",
      async () => ((await client.call("getInstance", { params: { id } })).status === "completed" ? true : undefined),
      120_000,
    );
    await page.goto(`${web.url}/#/instances/${id}`);
    const table = page.getByRole("table", { name: "Execution timeline" });
    await expect.poll(() => page.getByTestId("timeline-read").textContent()).toBe("1,000 read so far");
    expect(await table.locator("caption").textContent()).toContain("(the first 1,000 log entries; more follow)");
    const firstRows = await table.locator("tbody tr").count();
    expect(firstRows, "one row per visit among the first 1,000 entries").toBeGreaterThan(900);
    expect(firstRows).toBeLessThan(1150);

    await page.getByRole("button", { name: "Load the next 1,000 log entries" }).click();
    await expect
      .poll(() => table.locator("tbody tr").count(), { message: "every visit once the rest is read" })
      .toBe(1150);
    expect(await table.locator("tbody tr").last().locator("th").textContent()).toBe("1150. step");
    expect(await page.getByRole("button", { name: "Load the next 1,000 log entries" }).count()).toBe(0);
    expect(await table.locator("caption").textContent()).not.toContain("more follow");
  });

  it("shows a task still waiting with no end", async () => {
    const { page, web, client } = stack;
    const id = (await client.call("startInstance", { body: { process: "leaf", input: { n: 1 } } })).id;
    await eventually("leaf parked", async () =>
      (await client.call("getInstanceDetail", { params: { id } })).phase === "external" ? true : undefined,
    );
    await page.goto(`${web.url}/#/instances/${id}`);
    const row = page.getByRole("table", { name: "Execution timeline" }).locator('tbody tr[data-task="wait"]');
    await expect.poll(() => row.getAttribute("data-outcome")).toBe("running");
    expect(await row.locator("td").nth(4).textContent()).toBe("waiting");
    await client.call("signalExternalTask", { body: { instance_id: id, task: "wait", result: 5 } });
    await expect
      .poll(() => row.getAttribute("data-outcome"), { message: "the timeline refreshes while the instance is live" })
      .toBe("resolved");
  });
});

describe("children status filter", () => {
  it("lists the children in the chosen status, read from the API", async () => {
    const { page, web, client } = stack;
    const id = (await client.call("startInstance", { body: { process: "risky" } })).id;
    await eventually("risky failing", async () =>
      (await client.call("getInstance", { params: { id } })).status === "failing" ? true : undefined,
    );
    const children = await client.call("listInstances", { query: { parent_id: id } });
    const byProcess = new Map(children.items.map((row) => [row.process, row.id]));
    await page.goto(`${web.url}/#/instances/${id}`);
    const select = page.getByLabel("Children with status");
    await expect
      .poll(() => select.locator("option").allTextContents())
      .toEqual(["choose a status", "running (1)", "failed (1)"]);
    const rows = () =>
      page
        .locator(".children-by-status tbody tr[data-instance]")
        .evaluateAll((trs) => trs.map((tr) => tr.getAttribute("data-instance")));
    await select.selectOption("running");
    await expect.poll(rows).toEqual([byProcess.get("leaf")]);
    await select.selectOption("failed");
    await expect.poll(rows).toEqual([byProcess.get("broken")]);

    // The choice lives in the URL beside the logs' own state, and neither drops the other.
    await page.getByRole("region", { name: "Logs" }).getByLabel("Level").selectOption("warn");
    await expect.poll(() => page.url()).toBe(`${web.url}/#/instances/${id}?children_status=failed&log_level=warn`);
    await page.reload();
    await expect
      .poll(rows, { message: "the reload lists the failed children again" })
      .toEqual([byProcess.get("broken")]);
    expect(await select.inputValue()).toBe("failed");
    expect(await page.getByRole("region", { name: "Logs" }).getByLabel("Level").inputValue()).toBe("warn");
    await client.call("cancelInstance", { params: { id } });
  });
});
