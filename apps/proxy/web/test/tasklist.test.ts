// The tasklist: waiting external tasks from GET /external-tasks, and resolving or raising one
// from a form generated from its result_schema, against a real API.

import type { DefinitionInput } from "@baton/actions";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { axeViolations, describeViolations } from "./axe.js";
import { APPROVAL, EXPENSE, RECHECK } from "./fixtures.js";
import { eventually, mockSession, rowIds, signedInSession, type Stack, startStack } from "./harness.js";

let stack: Stack;

beforeAll(async () => {
  stack = await startStack();
  for (const definition of [APPROVAL, EXPENSE, RECHECK])
    await stack.client.call("putDefinition", { body: definition as DefinitionInput });
});

afterAll(async () => {
  await stack?.close();
});

async function parkedExpense(amount: number): Promise<string> {
  const { client } = stack;
  const id = (await client.call("startInstance", { body: { process: "expense", input: { amount } } })).id;
  await eventually(`expense ${amount} parked`, async () =>
    (await client.call("listExternalTasks", { query: { instance_id: id } })).items.length === 1 ? true : undefined,
  );
  return id;
}

async function settled(id: string) {
  return eventually(`instance ${id} settled`, async () => {
    const view = await stack.client.call("getInstance", { params: { id } });
    return ["completed", "failed", "raised"].includes(view.status) ? view : undefined;
  });
}

// A recheck instance parked at its review, and a new page on the review's Resolve form. The page's
// clock is held, so no refresh replaces the form (and its alert) while a test reads it.
async function reviewInPage() {
  const { browser, web, client } = stack;
  const id = (await client.call("startInstance", { body: { process: "recheck" } })).id;
  const first = await eventually(
    "the review parked",
    async () => (await client.call("listExternalTasks", { query: { instance_id: id } })).items[0],
  );
  const page = await browser.newPage();
  await page.clock.install();
  await page.goto(`${web.url}/#/external/${id}`);
  const form = page.getByRole("form", { name: "Resolve" });
  await expect.poll(() => form.getByLabel("ok").count()).toBe(1);
  return { id, first, page, form };
}

/** The visit of the review that waits once the one with task_epoch `epoch` has ended. */
const nextVisit = (id: string, epoch: number) =>
  eventually("the review's next visit parked", async () => {
    const item = (await stack.client.call("listExternalTasks", { query: { instance_id: id } })).items[0];
    return item && item.task_epoch !== epoch ? item : undefined;
  });

describe("tasklist", () => {
  it("lists waiting tasks oldest first with input, deadline and claimer, and drops one once it is resolved", async () => {
    const { page, web, client } = stack;
    const first = await parkedExpense(10);
    const second = (await client.call("startInstance", { body: { process: "approval", input: { doc: "memo" } } })).id;
    await eventually("the approval parked", async () =>
      (await client.call("listExternalTasks", { query: { instance_id: second } })).items.length ? true : undefined,
    );
    // A long lease: on a loaded machine the page may take a while, and a lapsed claim reads "nobody".
    const claim = await client.call("claimExternalTasks", {
      body: { worker_id: "bot-1", process: "approval", lease_ms: 600_000 },
    });
    expect(claim.items).toHaveLength(1);

    await page.goto(`${web.url}/#/external`);
    const row = (id: string) => page.locator(`tr[data-instance="${id}"]`);
    await expect.poll(() => row(second).count()).toBe(1);
    expect(await rowIds(stack.page), "oldest park first").toEqual([first, second]);
    const cells = await row(first).locator("td").allTextContents();
    expect(cells[0]).toBe("approve");
    expect(cells[1]).toContain("expense");
    expect(cells[4], "the worker input").toBe('{"amount":10}');
    expect(cells[6], "an hour's deadline, as a time").toMatch(/\(in \d+ (min|h)\)$/);
    expect(cells[7]).toBe("nobody");
    expect(await row(second).locator("td").nth(7).textContent()).toMatch(/^bot-1 until/);

    await page.getByLabel("Claim").selectOption("false");
    await expect.poll(() => rowIds(stack.page), { message: "claimable only" }).toEqual([first]);

    await expect.poll(() => page.url()).toBe(`${web.url}/#/external?claimed=false`);
    await page.getByLabel("Process").fill("expense");
    await expect.poll(() => page.url()).toBe(`${web.url}/#/external?claimed=false&process=expense`);
    await page.reload();
    await expect.poll(() => rowIds(stack.page), { message: "the reload keeps the filters" }).toEqual([first]);
    expect(await page.getByLabel("Process").inputValue()).toBe("expense");
    expect(await page.getByLabel("Claim").inputValue()).toBe("false");
    await page.getByLabel("Process").fill("");

    await client.call("resolveExternalTask", { body: { token: claim.items[0]!.token, result: {} } });
    await page.getByLabel("Claim").selectOption("");
    await expect.poll(() => rowIds(stack.page), { message: "a resolved task leaves the list" }).toEqual([first]);
    await client.call("cancelInstance", { params: { id: first } });
  });

  it("resolves a task from the form generated from its result_schema, and the instance completes with it", async () => {
    const { page, web } = stack;
    const id = await parkedExpense(25);
    await page.goto(`${web.url}/#/external`);
    await page.locator(`tr[data-instance="${id}"]`).getByRole("link", { name: "approve" }).click();
    const form = page.getByRole("form", { name: "Resolve" });
    await expect.poll(() => form.getByLabel("approver.name").count()).toBe(1);
    expect(await page.getByRole("figure", { name: "Task input" }).textContent()).toContain('"amount": 25');

    await form.getByLabel("approved").check();
    await form.getByLabel("amount").fill("25");
    await form.getByLabel("level").selectOption("high");
    await form.getByLabel("approver.name").fill("Ada");
    await form.getByRole("button", { name: "Resolve" }).click();
    await expect.poll(() => page.getByRole("status").textContent()).toContain("Resolved: task approve took the result");

    const view = await settled(id);
    expect(view.status).toBe("completed");
    expect(view.output).toEqual({ decision: { approved: true, amount: 25, level: "high", approver: { name: "Ada" } } });
    await expect.poll(() => page.getByText(`Instance ${id} does not wait on an external task now.`).count()).toBe(0); // the success notice replaces the "not waiting" sentence
  });

  it("names a field that does not parse, and shows the API's refusal with its path, and the task keeps waiting", async () => {
    const { page, web, client } = stack;
    const id = await parkedExpense(5);
    await page.goto(`${web.url}/#/instances/${id}`);
    await page.getByRole("link", { name: "Open the task" }).click();
    const form = page.getByRole("form", { name: "Resolve" });
    await expect.poll(() => form.getByLabel("amount").count()).toBe(1);

    await form.getByLabel("amount").fill("ten");
    await form.getByLabel("approver.name").fill("Bo");
    await form.getByRole("button", { name: "Resolve" }).click();
    await expect.poll(() => form.getByRole("alert").textContent()).toBe('amount: "ten" is not a whole number');

    await form.getByLabel("amount").fill("0");
    await form.getByRole("button", { name: "Resolve" }).click();
    const alert = form.locator(".error[role=alert]");
    await expect.poll(() => alert.textContent()).toContain("result.amount");
    const serious = (await axeViolations(page)).filter((v) => v.impact === "serious" || v.impact === "critical");
    expect(describeViolations(serious), "axe with the API's refusal shown").toBe("");
    expect(
      (await client.call("listExternalTasks", { query: { instance_id: id } })).items,
      "still waiting",
    ).toHaveLength(1);
    await client.call("cancelInstance", { params: { id } });
  });

  it("raises a declared error with its data, and the instance ends with that code", async () => {
    const { page, web } = stack;
    const id = await parkedExpense(99);
    await page.goto(`${web.url}/#/external/${id}`);
    const form = page.getByRole("form", { name: "Raise" });
    await expect.poll(() => form.getByLabel("Error code").count()).toBe(1);
    expect(await form.getByLabel("Error code").locator("option").allTextContents()).toEqual([
      "choose a code",
      "rejected",
      "withdrawn",
    ]);
    await form.getByLabel("Error code").selectOption("rejected");
    await form.getByLabel("Message").fill("over budget");
    await form.getByLabel("reason").fill("the budget is 50");
    const serious = (await axeViolations(page)).filter((v) => v.impact === "serious" || v.impact === "critical");
    expect(describeViolations(serious), "axe on the filled Raise form").toBe("");
    await form.getByRole("button", { name: "Raise" }).click();
    await expect.poll(() => page.getByRole("status").textContent()).toContain("Raised rejected");

    const view = await settled(id);
    expect(view.error_code).toBe("rejected");
  });

  it("says nothing was sent when the task stopped waiting after the page was opened", async () => {
    const { browser, web, client } = stack;
    const id = await parkedExpense(7);
    // The page's clock is held, so no refresh runs: the page still offers the form when the task
    // has already stopped waiting, and the check made before sending is what refuses.
    const page = await browser.newPage();
    await page.clock.install();
    await page.goto(`${web.url}/#/external/${id}`);
    const form = page.getByRole("form", { name: "Raise" });
    await expect.poll(() => form.getByLabel("Error code").count()).toBe(1);
    await client.call("signalExternalTask", {
      body: { instance_id: id, task: "approve", error: { code: "withdrawn" } },
    });
    await settled(id);
    await form.getByLabel("Error code").selectOption("withdrawn");
    await form.getByRole("button", { name: "Raise" }).click();
    await expect.poll(() => form.locator(".error[role=alert]").textContent()).toContain("Nothing was sent");
    const logs = await client.call("listInstanceLogs", { params: { id }, query: { limit: 100 } });
    expect(
      logs.items.filter((entry) => entry.event === "external.resolved"),
      "only the first outcome reached the task",
    ).toHaveLength(1);
    await page.close();
  });

  it("sends nothing, and keeps nothing for the next visit, when the task stops waiting between the page's check and its answer", async () => {
    const { client } = stack;
    const { id, first, page, form } = await reviewInPage();
    // The race, ordered: the page has checked that the visit still waits; before its answer
    // reaches the API a colleague answers "not ok" (the instance is paused so that it stays
    // between visits until the page's answer has been judged).
    let raced = false;
    await page.route("**/api/external-tasks/signal", async (route) => {
      await client.call("pauseInstance", { params: { id } });
      await client.call("signalExternalTask", { body: { instance_id: id, task: "review", result: { ok: false } } });
      raced = true;
      await route.continue();
    });
    await form.getByLabel("ok").check();
    await form.getByRole("button", { name: "Resolve" }).click();
    // After the refusal the page reads the task again: none waits now, so the form is gone and
    // the refusal stays in view on the page.
    await expect
      .poll(() => page.getByTestId("missed").textContent())
      .toBe(
        `Your answer to the earlier visit of this task was not delivered. Nothing was sent: task "review" of instance ${id} is not waiting now (the instance is paused at task "review"); with task_epoch ${first.task_epoch} nothing was delivered or kept for a later visit.`,
      );
    expect(raced).toBe(true);

    await client.call("resumeInstance", { params: { id } });
    const second = await nextVisit(id, first.task_epoch);
    expect(second.task).toBe("review");
    const logs = (await client.call("listInstanceLogs", { params: { id }, query: { limit: 100 } })).items;
    expect(
      logs.filter((entry) => entry.event === "external.buffered"),
      "nothing kept",
    ).toEqual([]);
    expect(logs.filter((entry) => entry.event === "external.resolved")).toHaveLength(1);
    expect((await client.call("getInstance", { params: { id } })).status).toBe("running");
    await client.call("cancelInstance", { params: { id } });
    await page.close();
  });

  it("sends nothing to a new visit of the same task that began between the page's check and its answer", async () => {
    const { client } = stack;
    const { id, first, page, form } = await reviewInPage();
    // The race, ordered: after the page's check a colleague answers "not ok" and the loop parks
    // the review again (a new visit, waiting now) before the page's answer reaches the API.
    let second: { task: string; task_epoch: number } | undefined;
    await page.route("**/api/external-tasks/signal", async (route) => {
      await client.call("signalExternalTask", { body: { instance_id: id, task: "review", result: { ok: false } } });
      second = await nextVisit(id, first.task_epoch);
      await route.continue();
    });
    await form.getByLabel("ok").check();
    await form.getByRole("button", { name: "Resolve" }).click();
    // The page's list refresh shows the new visit with fresh forms; the refusal stays above them.
    await expect.poll(() => page.getByTestId("missed").count()).toBe(1);
    expect(await page.getByTestId("missed").textContent()).toBe(
      `Your answer to the earlier visit of this task was not delivered. Nothing was sent: task "review" of instance ${id} waits in another visit (task_epoch ${second?.task_epoch}) than the one this signal answers (task_epoch ${first.task_epoch}); nothing was delivered or kept for a later visit. The form below is for the visit waiting now.`,
    );
    expect(second?.task).toBe("review");
    const waiting = (await client.call("listExternalTasks", { query: { instance_id: id } })).items;
    expect(waiting, "the new visit still waits").toEqual([second]);
    const logs = (await client.call("listInstanceLogs", { params: { id }, query: { limit: 100 } })).items;
    expect(
      logs.filter((entry) => entry.event === "external.resolved"),
      "only the colleague's answer",
    ).toHaveLength(1);
    expect(logs.filter((entry) => entry.event === "external.buffered")).toEqual([]);
    await client.call("cancelInstance", { params: { id } });
    await page.close();
  });

  it("shows the task but no form to a reader without worker", async () => {
    const { browser, web } = stack;
    const id = await parkedExpense(3);
    const page = await browser.newPage();
    await mockSession(page, signedInSession("reader@example.com", ["read"]));
    await page.goto(`${web.url}/#/external/${id}`);
    await expect.poll(() => page.getByTestId("needs-worker").count()).toBe(1);
    expect(await page.getByRole("form", { name: "Resolve" }).count()).toBe(0);
    expect(await page.getByRole("figure", { name: "Task input" }).textContent()).toContain('"amount": 3');
    await page.close();
  });

  it("fits a 390 px screen: the list and a task's page with its forms", async () => {
    const { browser, web } = stack;
    const id = await parkedExpense(4);
    const page = await browser.newPage({ viewport: { width: 390, height: 844 } });
    await page.goto(`${web.url}/#/external`);
    await expect.poll(() => page.locator(`tr[data-instance="${id}"]`).count()).toBe(1);
    expect(await page.evaluate(() => document.documentElement.scrollWidth), "the list").toBeLessThanOrEqual(390);
    await page.goto(`${web.url}/#/external/${id}`);
    await expect.poll(() => page.getByRole("form", { name: "Raise" }).count()).toBe(1);
    expect(await page.evaluate(() => document.documentElement.scrollWidth), "the task page").toBeLessThanOrEqual(390);
    await page.close();
  });
});

// Issue 34: a reviewer answers in one go, and a refusal is read where the person is looking.
describe("answering a task", () => {
  it("rejects in one go: a required box never touched is sent as false", async () => {
    const { page, web } = stack;
    const id = await parkedExpense(7);
    await page.goto("about:blank");
    await page.goto(`${web.url}/#/external/${id}`);
    const form = page.getByRole("form", { name: "Resolve" });
    await expect.poll(() => form.getByLabel("approver.name").count()).toBe(1);
    await form.getByLabel("amount").fill("7");
    await form.getByLabel("approver.name").fill("Rex");
    await form.getByRole("button", { name: "Resolve" }).click();
    await expect.poll(() => page.getByRole("status").textContent()).toContain("Resolved: task approve took the result");
    expect((await settled(id)).output).toEqual({ decision: { approved: false, amount: 7, approver: { name: "Rex" } } });
  });

  for (const width of [1440, 390])
    it(`at ${width} px checks required fields before sending, and writes each problem beside its field, focused and in view`, async () => {
      const { browser, web, client } = stack;
      const id = await parkedExpense(8);
      const page = await browser.newPage({ viewport: { width, height: 700 } });
      const signals: string[] = [];
      page.on("request", (request) => {
        if (request.url().includes("/external-tasks/signal")) signals.push(request.url());
      });
      await page.goto(`${web.url}/#/external/${id}`);
      const form = page.getByRole("form", { name: "Resolve" });
      await expect.poll(() => form.getByLabel("approver.name").count()).toBe(1);
      const focusedInView = () =>
        page.evaluate(() => {
          const active = document.activeElement as HTMLElement;
          const error = document.getElementById(`${active.id}-error`);
          const seen = (el: Element | null) =>
            !!el && el.getBoundingClientRect().top >= 0 && el.getBoundingClientRect().bottom <= window.innerHeight;
          return `${active.id} invalid=${active.getAttribute("aria-invalid")} field-in-view=${seen(active)} error-in-view=${seen(error)}: ${error?.textContent ?? ""}`;
        });

      await form.getByRole("button", { name: "Resolve" }).click();
      await expect
        .poll(focusedInView, { message: "the first empty required field, before anything is sent" })
        .toBe("result-amount invalid=true field-in-view=true error-in-view=true: required: fill it in");
      expect(await page.locator("#result-approver\\.name-error").textContent()).toBe("required: fill it in");
      expect(signals, "nothing sent").toEqual([]);

      await form.getByLabel("amount").fill("0");
      await form.getByLabel("approver.name").fill("Bo");
      await form.getByRole("button", { name: "Resolve" }).click();
      await expect
        .poll(focusedInView, { message: "the API's refusal beside the field its path names" })
        .toMatch(/^result-amount invalid=true field-in-view=true error-in-view=true: result\.amount: /);
      expect(await page.locator("#result-approver\\.name-error").count(), "the fixed field is no longer marked").toBe(
        0,
      );
      const serious = (await axeViolations(page)).filter((v) => v.impact === "serious" || v.impact === "critical");
      expect(describeViolations(serious), "axe with problems beside the fields").toBe("");
      await client.call("cancelInstance", { params: { id } });
      await page.close();
    });

  it("shows the tree's business key on the tasklist, the task's page and the instance's page", async () => {
    const { page, web, client } = stack;
    const id = (
      await client.call("startInstance", { body: { process: "expense", input: { amount: 2 }, key: "exp-42" } })
    ).id;
    await eventually("parked", async () =>
      (await client.call("listExternalTasks", { query: { instance_id: id } })).items.length === 1 ? true : undefined,
    );
    await page.goto("about:blank");
    await page.goto(`${web.url}/#/external`);
    await expect.poll(() => page.locator(`tr[data-instance="${id}"] .row-key`).textContent()).toBe("key exp-42");
    await page.goto("about:blank");
    await page.goto(`${web.url}/#/external/${id}`);
    await expect.poll(() => page.getByTestId("business-key").textContent()).toBe("exp-42");
    await page.goto("about:blank");
    await page.goto(`${web.url}/#/instances/${id}`);
    await expect.poll(() => page.getByTestId("business-key").textContent()).toBe("exp-42");
    await client.call("cancelInstance", { params: { id } });
  });
});
