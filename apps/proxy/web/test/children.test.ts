// The children tree, a child's page and `failing`, against real child instances spawned by the
// engine (child_map, child_list, child, three levels deep).

import type { DefinitionInput, InstanceDetail } from "@baton/actions";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BROKEN, FAN, LEAF, MID, MIXED, OUTER, RISKY, SLOT, WIDE } from "./fixtures.js";
import { eventually, type Stack, startStack } from "./harness.js";

let stack: Stack;
let fan: string; // the root: pair = child_map {left: leaf, deep: mid}, then each = child_list of leaves
let left: string; // fan's pair[left], a leaf parked on "wait"
let deep: string; // fan's pair[deep], a mid waiting on its own child
let grandchild: string; // deep's inner, a leaf parked on "wait"

// resolve=true: a list of more than about 50 child ids is stored apart and would read as {"$ref": …}.
const detail = (id: string): Promise<InstanceDetail> =>
  stack.client.call("getInstanceDetail", { params: { id }, query: { resolve: true } });

/** The instance once `ready` holds for its detail. */
async function detailWhen(id: string, what: string, ready: (d: InstanceDetail) => boolean): Promise<InstanceDetail> {
  let last: InstanceDetail | undefined;
  try {
    return await eventually(what, async () => {
      last = await detail(id);
      return ready(last) ? last : undefined;
    });
  } catch (error) {
    const { error_code, error_message } = await stack.client.call("getInstance", { params: { id } });
    const { status, task, phase, state } = last ?? {};
    throw new Error(
      `${(error as Error).message}; the instance was last ${JSON.stringify({ status, task, phase, error_code, error_message, state })}`,
    );
  }
}

beforeAll(async () => {
  stack = await startStack();
  const { client } = stack;
  for (const definition of [LEAF, MID, FAN, BROKEN, RISKY, SLOT, WIDE, OUTER, MIXED])
    await client.call("putDefinition", { body: definition as DefinitionInput });
  fan = (await client.call("startInstance", { body: { process: "fan", input: { items: [{ n: 1 }, { n: 2 }] } } })).id;
  const parent = await detailWhen(
    fan,
    "fan waiting on its child_map",
    (d) => d.phase === "children" && d.state._children?.pair !== undefined,
  );
  ({ left, deep } = parent.state._children!.pair as Record<string, string>);
  const mid = await detailWhen(
    deep,
    "mid waiting on its child",
    (d) => d.phase === "children" && typeof d.state._children?.inner === "string",
  );
  grandchild = mid.state._children!.inner as string;
  await detailWhen(left, "left parked on its external task", (d) => d.phase === "external");
  await detailWhen(grandchild, "the grandchild parked on its external task", (d) => d.phase === "external");
});

afterAll(async () => {
  await stack?.close();
});

/** A fresh document at `hash` (a goto that only changes the hash would keep the page as it was). */
async function open(hash: string): Promise<void> {
  await stack.page.goto("about:blank");
  await stack.page.goto(`${stack.web.url}/${hash}`);
}

const tree = () => stack.page.getByRole("list", { name: "Children" });
const node = (id: string) => stack.page.locator(`li[data-child="${id}"]`);
const facts = () => stack.page.locator("dl.facts");
const button = (name: string) => stack.page.getByRole("button", { name, exact: true });

describe("a parent's children tree", () => {
  it("lists each child_map child under its task and key, with its process, status, task and a link", async () => {
    await open(`#/instances/${fan}`);
    await expect
      .poll(() => tree().locator(":scope > li").count(), { message: "both children of the child_map are listed" })
      .toBe(2);
    await expect
      .poll(() => node(left).locator(".status").textContent(), { message: "the child's own status comes from the API" })
      .toBe("running");
    expect(await node(left).textContent(), "the task and the map key say which spawn this child is").toContain(
      "pair[left]:",
    );
    expect(await node(left).textContent()).toContain("leaf v1");
    expect(await node(left).textContent(), "the task the child sits on").toContain("on wait");
    expect(await node(deep).textContent()).toContain("pair[deep]:");
    expect(await node(deep).textContent()).toContain("mid v1");
    expect(await node(left).getByRole("link", { name: left }).getAttribute("href")).toBe(`#/instances/${left}`);
    expect(await facts().textContent(), "the parent waits in phase children").toContain("children");
    expect(await facts().textContent(), "a root has no parent line").not.toContain("Parent");
  });

  it("expands a child into its own children, loaded when opened", async () => {
    const { page } = stack;
    await open(`#/instances/${fan}`);
    await expect.poll(() => node(deep).count()).toBe(1);
    expect(await node(grandchild).count(), "a child's children are not loaded before it is opened").toBe(0);
    await page.getByRole("button", { name: `Expand ${deep}` }).click();
    await expect
      .poll(() => node(deep).locator(`li[data-child="${grandchild}"]`).count(), {
        message: "the grandchild is nested under its parent",
      })
      .toBe(1);
    expect(await node(grandchild).textContent(), "a single child has no key").toContain(`inner: ${grandchild}`);
    await expect.poll(() => node(grandchild).locator(".status").textContent()).toBe("running");
    await page.getByRole("button", { name: `Expand ${left}` }).click();
    await expect
      .poll(() => node(left).locator("p.muted").textContent(), { message: "an expanded leaf says it has no children" })
      .toBe("No children.");
    await page.getByRole("button", { name: `Collapse ${deep}` }).click();
    expect(await node(grandchild).count()).toBe(0);
  });
});

describe("a wide child_list", () => {
  let outer: string; // the root: one child "fan" (wide)
  let wide: string; // outer's child, a child_list of 60 slots
  let each: string[]; // wide's 60 children

  beforeAll(async () => {
    const items = Array.from({ length: 60 }, (_, n) => ({ n }));
    outer = (await stack.client.call("startInstance", { body: { process: "outer", input: { items } } })).id;
    const root = await detailWhen(
      outer,
      "outer waiting on its child",
      (d) => d.phase === "children" && typeof d.state._children?.fan === "string",
    );
    wide = root.state._children!.fan as string;
    const parent = await detailWhen(
      wide,
      "wide waiting on its 60 children",
      (d) => d.phase === "children" && Array.isArray(d.state._children?.each),
    );
    each = parent.state._children!.each as string[];
    expect(each).toHaveLength(60);
    const stored = await stack.client.call("getInstanceDetail", { params: { id: wide } });
    expect(
      stored.state._children!.each,
      "the premise: unresolved, the API shows this list as a stored object",
    ).toHaveProperty("$ref");
  });

  it("shows the first 50 children and the rest on demand, rather than reading every child on every poll", async () => {
    await open(`#/instances/${wide}`);
    const shown = tree().locator(":scope > li[data-child]");
    await expect.poll(() => shown.count(), { message: "one page of children" }).toBe(50);
    expect(await node(each[49]!).textContent()).toContain(`each[49]: ${each[49]}`);
    expect(await node(each[50]!).count(), "the 51st child waits for Show more").toBe(0);
    await tree().getByRole("button", { name: "Show 10 more (50 of 60 shown)" }).click();
    await expect.poll(() => shown.count(), { message: "every child once asked for" }).toBe(60);
    expect(await node(each[59]!).textContent()).toContain(`each[59]: ${each[59]}`);
    await expect.poll(() => node(each[59]!).locator(".status").textContent()).toBe("running");
    expect(await tree().getByRole("button", { name: /more/ }).count(), "nothing left to show").toBe(0);
  });

  it("expands a child whose own children the API stored apart into those children, not into a bogus $ref key", async () => {
    const { page } = stack;
    await open(`#/instances/${outer}`);
    await expect.poll(() => node(wide).count()).toBe(1);
    await page.getByRole("button", { name: `Expand ${wide}` }).click();
    const nested = node(wide).locator("li[data-child]");
    await expect.poll(() => nested.count(), { message: "wide's children, one page of them" }).toBe(50);
    expect(await nested.first().textContent()).toContain(`each[0]: ${each[0]}`);
    expect(await node(wide).textContent(), "a placeholder is not a child_map key").not.toContain("[$ref]");
    await node(wide).getByRole("button", { name: "Show 10 more (50 of 60 shown)" }).click();
    await expect.poll(() => nested.count()).toBe(60);
  });
});

describe("a tree's logs", () => {
  it("shows the children's lines on the root's page, each linked to its child, and only the root's own when flat", async () => {
    const { page } = stack;
    await open(`#/instances/${fan}`);
    const childLine = (id: string) => page.locator(`table.logs tbody a[href="#/instances/${id}"]`);
    await expect
      .poll(() => childLine(left).count(), { message: "a root's logs include its children's lines" })
      .toBeGreaterThan(0);
    expect(
      await childLine(left).first().textContent(),
      "the instance column names the child by the end of its id",
    ).toBe(left.slice(-8));
    expect(await childLine(grandchild).count(), "and its grandchildren's").toBeGreaterThan(0);

    // The tree is parked (every leaf waits on its external task), so no line is added meanwhile.
    const own = await stack.client.call("listInstanceLogs", { params: { id: fan }, query: { flat: true, limit: 50 } });
    const all = await stack.client.call("listInstanceLogs", { params: { id: fan }, query: { limit: 50 } });
    expect(own.items.length, "the tree has more lines than the root alone").toBeLessThan(all.items.length);
    await expect
      .poll(() => page.locator("table.logs tbody tr").count(), { message: "the page shows the whole tree's lines" })
      .toBe(all.items.length);
    await page.getByLabel("this instance only (flat)").check();
    await expect
      .poll(() => page.locator("table.logs tbody tr").count(), { message: "flat shows the root's own lines only" })
      .toBe(own.items.length);
    expect(
      await page.locator("table.logs thead th").allTextContents(),
      "one instance: no instance column",
    ).not.toContain("Instance");
    expect(await page.locator("table.logs tbody td.mono").allTextContents(), "the root's own start is there").toContain(
      "instance.started",
    );

    await open(`#/instances/${left}`);
    await expect.poll(() => page.locator("table.logs tbody tr").count()).toBeGreaterThan(0);
    expect(
      await page.getByRole("group", { name: "Rows" }).count(),
      "a child's logs are its own: no whole-tree choice",
    ).toBe(0);
  });
});

describe("a child's page", () => {
  it("opens from the tree's link and shows its parent and root, and no lifecycle buttons", async () => {
    const { page, web } = stack;
    await open(`#/instances/${fan}`);
    await expect.poll(() => node(deep).count()).toBe(1);
    await node(deep).getByRole("link", { name: deep }).click();
    await expect
      .poll(() => page.locator("h1").textContent(), { message: "following a child's link opens that child" })
      .toContain(deep);
    await expect.poll(() => page.url()).toBe(`${web.url}/#/instances/${deep}`);
    await expect.poll(() => facts().textContent()).toContain("Parent");
    const parentCell = facts().locator("dd").filter({ hasText: "root" });
    const links = parentCell.getByRole("link");
    expect(await links.count(), "the parent and the root, both links").toBe(2);
    expect(await links.nth(0).getAttribute("href"), "its parent is fan").toBe(`#/instances/${fan}`);
    expect(await links.nth(1).getAttribute("href"), "its root is fan too").toBe(`#/instances/${fan}`);

    expect(
      await facts().locator(".status").textContent(),
      "the child runs: a root in this status would offer pause and cancel",
    ).toBe("running");
    for (const verb of ["Pause", "Resume", "Cancel", "Retry", "Upgrade"]) {
      expect(
        await button(verb).count(),
        `the API refuses ${verb} on a child id, so a child's page must not offer it`,
      ).toBe(0);
    }
    const pointer = page.locator(".lifecycle-child");
    expect(await pointer.textContent(), "a child's page says the verbs act on the root").toContain(
      "Lifecycle actions act on the whole tree",
    );
    expect(await pointer.getByRole("link").getAttribute("href"), "and links that root").toBe(`#/instances/${fan}`);
  });

  it("names a grandchild's parent and its root apart, and the root link leads to the root's actions", async () => {
    const { page, web } = stack;
    await open(`#/instances/${grandchild}`);
    await expect.poll(() => facts().textContent()).toContain("Parent");
    const links = facts().locator("dd").filter({ hasText: "root" }).getByRole("link");
    expect(await links.nth(0).getAttribute("href"), "the parent is the mid child").toBe(`#/instances/${deep}`);
    expect(await links.nth(1).getAttribute("href"), "the root is the top of the tree").toBe(`#/instances/${fan}`);
    expect(await button("Pause").count()).toBe(0);

    await page.locator(".lifecycle-child").getByRole("link").click();
    await expect.poll(() => page.url()).toBe(`${web.url}/#/instances/${fan}`);
    await expect
      .poll(() => button("Pause").count(), { message: "the root's page offers the verbs for the whole tree" })
      .toBe(1);
    expect(await button("Cancel").count()).toBe(1);
  });
});

describe("a parent's child_list", () => {
  it("lists child_list children by index once the parent reaches its child_list", async () => {
    const { page, client } = stack;
    // Settle the child_map: the leaf and the grandchild (which completes mid) resolve their external tasks.
    for (const id of [left, grandchild])
      await client.call("signalExternalTask", { body: { instance_id: id, task: "wait", result: { from: id } } });
    const parent = await detailWhen(
      fan,
      "fan waiting on its child_list",
      (d) => d.task === "each" && d.phase === "children" && Array.isArray(d.state._children?.each),
    );
    const each = parent.state._children!.each as string[];
    expect(each, "one child per element of input.items").toHaveLength(2);

    await open(`#/instances/${fan}`);
    await expect.poll(() => node(each[1]!).count()).toBe(1);
    expect(await node(each[0]!).textContent(), "a child_list child is named by its index").toContain(
      `each[0]: ${each[0]}`,
    );
    expect(await node(each[1]!).textContent()).toContain(`each[1]: ${each[1]}`);
    await expect.poll(() => node(each[0]!).locator(".status").textContent()).toBe("running");
    await expect
      .poll(() => node(left).locator(".status").textContent(), {
        message: "the settled child_map children stay listed with their outcome",
      })
      .toBe("completed");
    expect(
      await page.getByRole("figure", { name: "Output of pair" }).textContent(),
      "the child_map's result is the children's outputs by key",
    ).toContain(`"from": "${left}"`);

    // Live refresh: a child that settles while the page is open shows its new status.
    await client.call("signalExternalTask", { body: { instance_id: each[0]!, task: "wait", result: { done: true } } });
    await expect.poll(() => node(each[0]!).locator(".status").textContent(), { timeout: 15_000 }).toBe("completed");
  });
});

describe("failing", () => {
  it("shows a parent whose child failed while a sibling still runs as failing, with cancel but not pause", async () => {
    const { page, client } = stack;
    const risky = (await client.call("startInstance", { body: { process: "risky" } })).id;
    const parent = await eventually("risky failing", async () => {
      const d = await detail(risky);
      return d.status === "failing" ? d : undefined;
    });
    const { bad, slow } = parent.state._children!.both as Record<string, string>;

    await open(`#/instances/${risky}`);
    await expect.poll(() => facts().locator(".status").textContent()).toBe("failing");
    expect(
      await facts().locator(".status").getAttribute("class"),
      "failing is drawn like failed, not as an unknown status",
    ).toContain("status-failing");
    await expect.poll(() => node(bad).locator(".status").textContent()).toBe("failed");
    await expect.poll(() => node(slow).locator(".status").textContent()).toBe("running");
    await expect.poll(() => button("Cancel").count(), { message: "a failing tree can still be cancelled" }).toBe(1);
    expect(await button("Pause").count(), "pause takes running trees only").toBe(0);
    expect(await button("Retry").count(), "retry waits until the tree has failed").toBe(0);

    // The failing parent explains itself: which child failed, with what, and how many of how many.
    const badView = await client.call("getInstance", { params: { id: bad } });
    expect(badView.error_code, "the broken child failed with an error code").toBeTruthy();
    const errorFact = facts().locator("dt", { hasText: "Error" }).locator("xpath=following-sibling::dd[1]");
    await expect.poll(() => errorFact.textContent()).toContain(`child ${bad}`);
    expect(await errorFact.textContent(), "the header names the child's error").toContain(badView.error_code!);
    expect(await page.getByTestId("children-summary").textContent()).toContain("1 of 2 children failed");
    const failedRow = page.locator(`tr[data-failed-child="${bad}"]`);
    expect(await failedRow.textContent(), "the failed child is listed with its error").toContain(badView.error_code!);
    expect(await page.locator("tr[data-failed-child]").count(), "only the failed child").toBe(1);
    expect(await node(bad).locator("code").first().textContent(), "its tree row shows the error code").toBe(
      badView.error_code,
    );

    await open(`#/instances?status=failing`);
    await expect
      .poll(() => page.locator("tbody tr[data-instance]").count(), { message: "the status filter finds failing roots" })
      .toBe(1);
    expect(await page.locator(`tr[data-instance="${risky}"] .status`).textContent()).toBe("failing");
  });
});

describe("sorting and filtering a level of children", () => {
  it("puts the failed child first when asked, and filters the children by text", async () => {
    const { client } = stack;
    const mixed = (await client.call("startInstance", { body: { process: "mixed" } })).id;
    const parent = await eventually("mixed failing", async () => {
      const d = await detail(mixed);
      return d.status === "failing" ? d : undefined;
    });
    const { a, b, c } = parent.state._children!.trio as Record<string, string>;
    const order = () =>
      tree()
        .locator(":scope > li[data-child]")
        .evaluateAll((rows) => rows.map((r) => r.getAttribute("data-child")));
    const tools = stack.page.getByRole("group", { name: "Sort and filter children" });

    await open(`#/instances/${mixed}`);
    await expect.poll(() => node(c).locator(".status").textContent()).toBe("failed");
    await expect.poll(() => node(a).locator(".status").textContent()).toBe("running");
    expect(await order(), "as spawned: the failed child comes last").toEqual([a, b, c]);

    await tools.getByLabel("Sort").selectOption("status");
    await expect.poll(order, { message: "failed first, the rest in spawn order" }).toEqual([c, a, b]);
    await tools.getByLabel("Sort").selectOption("error");
    await expect.poll(order, { message: "the child with an error code first" }).toEqual([c, a, b]);
    await tools.getByLabel("Sort").selectOption("spawn");
    await expect.poll(order).toEqual([a, b, c]);

    const code = (await client.call("getInstance", { params: { id: c } })).error_code!;
    await tools.getByLabel("Filter").fill(code);
    await expect.poll(order, { message: "only the child with that error code" }).toEqual([c]);
    expect(await tools.getByRole("status").textContent()).toBe("1 of 3 children shown match");
    await tools.getByLabel("Filter").fill("trio[b]");
    await expect.poll(order, { message: "a child found by its place" }).toEqual([b]);
    await tools.getByLabel("Filter").fill("");
    await expect.poll(order).toEqual([a, b, c]);
  });
});

describe("the instance list with children", () => {
  it("lists children only when asked, each with a link to its parent", async () => {
    const { page, web } = stack;
    await open(`#/instances?process=mid`);
    await expect
      .poll(() => page.getByText("No instance matches these filters.").count(), {
        message: "without the children filter only roots are listed",
      })
      .toBe(1);

    await open(`#/instances?process=mid&children=true`);
    const row = page.locator(`tr[data-instance="${deep}"]`);
    await expect.poll(() => row.count()).toBe(1);
    expect(await page.getByLabel("Include children").isChecked(), "the form shows the filter of the link").toBe(true);
    expect(await row.locator(".child-of").textContent(), "a child row names its parent").toContain(`child of ${fan}`);
    expect(await row.locator(".child-of").getByRole("link").getAttribute("href")).toBe(`#/instances/${fan}`);

    await open(`#/instances?process=leaf&children=true`);
    const grandRow = page.locator(`tr[data-instance="${grandchild}"]`);
    await expect.poll(() => grandRow.count()).toBe(1);
    expect(
      await grandRow.locator(".child-of").getByRole("link").getAttribute("href"),
      "a grandchild's parent is the mid child, not the root",
    ).toBe(`#/instances/${deep}`);
    await grandRow.locator(".child-of").getByRole("link").click();
    await expect.poll(() => page.url()).toBe(`${web.url}/#/instances/${deep}`);
  });
});
