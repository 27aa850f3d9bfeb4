// One data set with something on every page (instances in every settled and live status, a
// failing tree, versions to compare, channels, a token), seeded through the real API, and the
// list of pages to open on it. The accessibility test runs axe on each page, and the
// screenshot script (test/screenshots.run.ts) photographs some for docs/ui/.

import type { BatonClient, DefinitionInput, StartInstanceBody } from "@baton/actions";
import type { Page } from "playwright-core";
import { BRANCHY, BROKEN, FAN, LEAF, MID, ORDER_V1, ORDER_V2, RISKY } from "./fixtures.js";
import { eventually } from "./harness.js";

export interface Showcase {
  /** order v1 parked on its external task "approve". */
  parked: string;
  /** order v1 that completed (approved). */
  completed: string;
  /** order v1 that raised "declined". */
  raised: string;
  /** broken: failed with pre.error. */
  failed: string;
  /** risky: failing, its child "bad" failed while "slow" waits. */
  failing: string;
  /** fan: a tree three levels deep, its children waiting. */
  tree: string;
}

async function started(
  client: BatonClient,
  body: { process: string; version?: number; input?: Record<string, unknown> },
) {
  return (await client.call("startInstance", { body: body as StartInstanceBody })).id;
}

export async function seedShowcase(client: BatonClient): Promise<Showcase> {
  for (const definition of [ORDER_V1, ORDER_V2, BROKEN, LEAF, MID, FAN, RISKY, BRANCHY])
    await client.call("putDefinition", { body: definition as DefinitionInput });
  await client.call("setChannel", { body: { name: "order", channel: "stable", version: 1 } });
  await client.call("setChannel", { body: { name: "order", channel: "beta", version: 2 } });
  await client.call("createToken", { body: { label: "ci deploys", perms: ["read", "deploy"] } });
  // Paused: it never starts an instance the other pages would show.
  await client.call("putSchedule", {
    params: { name: "morning-order" },
    body: {
      process: "order",
      channel: "stable",
      cron: ["0 9 * * MON-FRI"],
      time_zone: "Europe/Berlin",
      input: { item: "$: schedule.fire_time" },
      paused: true,
    },
  });

  const order = (item: string) => started(client, { process: "order", version: 1, input: { item } });
  const shown: Showcase = {
    parked: await order("book"),
    completed: await order("lamp"),
    raised: await order("vase"),
    failed: await started(client, { process: "broken" }),
    failing: await started(client, { process: "risky" }),
    tree: await started(client, { process: "fan", input: { items: [{ n: 1 }, { n: 2 }, { n: 3 }] } }),
  };
  const view = (id: string) => client.call("getInstanceDetail", { params: { id } });
  for (const id of [shown.parked, shown.completed, shown.raised])
    await eventually("the orders parked", async () => ((await view(id)).phase === "external" ? true : undefined));
  await client.call("signalExternalTask", {
    body: { instance_id: shown.completed, task: "approve", result: { ok: true } },
  });
  await client.call("signalExternalTask", {
    body: { instance_id: shown.raised, task: "approve", result: { ok: false } },
  });
  const settled: [string, string][] = [
    [shown.completed, "completed"],
    [shown.raised, "raised"],
    [shown.failed, "failed"],
    [shown.failing, "failing"],
  ];
  for (const [id, status] of settled)
    await eventually(`${id} ${status}`, async () => ((await view(id)).status === status ? true : undefined), 30_000);
  await eventually(
    "the fan tree spawned its children",
    async () => ((await view(shown.tree)).state._children?.pair ? true : undefined),
    30_000,
  );
  return shown;
}

export interface ShowcasePage {
  name: string;
  hash: string;
  /** Shown once the page has its data (a CSS selector). */
  ready: string;
}

/** Every page of the UI, each on data that fills it. */
export function showcasePages(ids: Showcase): ShowcasePage[] {
  return [
    { name: "instances", hash: "#/instances", ready: `tr[data-instance="${ids.failed}"]` },
    {
      name: "instances-filtered",
      hash: "#/instances?status=failed,raised",
      ready: `tr[data-instance="${ids.raised}"]`,
    },
    { name: "instance", hash: `#/instances/${ids.parked}`, ready: "svg g.node-current" },
    { name: "instance-raised", hash: `#/instances/${ids.raised}`, ready: "svg g.node-current" },
    { name: "instance-completed", hash: `#/instances/${ids.completed}`, ready: "section.timeline table" },
    { name: "tree", hash: `#/instances/${ids.failing}`, ready: "ul.tree li[data-child] .status" },
    { name: "tree-deep", hash: `#/instances/${ids.tree}`, ready: "ul.tree li[data-child] .status" },
    {
      name: "tree-children-failed",
      hash: `#/instances/${ids.failing}?children_status=failed`,
      ready: ".children-by-status tbody tr[data-instance]",
    },
    {
      // The bulk panel open on an upgrade with its compatibility check and preview (state in the URL).
      name: "bulk-upgrade-preview",
      hash: "#/instances?process=order&bulk=upgrade&bulk_from=1&bulk_to=2&bulk_preview=true",
      ready: "[data-testid='bulk-preview']",
    },
    { name: "external", hash: "#/external", ready: `tr[data-instance="${ids.parked}"]` },
    {
      name: "external-filtered",
      hash: "#/external?process=order&claimed=false",
      ready: `tr[data-instance="${ids.parked}"]`,
    },
    { name: "task", hash: `#/external/${ids.parked}`, ready: "form[aria-label='Resolve']" },
    { name: "definitions", hash: "#/definitions", ready: "tbody tr" },
    { name: "process", hash: "#/definitions/order", ready: "form[aria-label='Compare versions']" },
    { name: "version", hash: "#/definitions/branchy/1", ready: "svg g.edge text" },
    { name: "compare", hash: "#/definitions/order/compare?from=1&to=2", ready: "table.diff tr[data-change]" },
    { name: "channels", hash: "#/channels", ready: 'tr[data-channel="stable"]' },
    { name: "schedules", hash: "#/schedules", ready: 'tr[data-schedule="morning-order"]' },
    { name: "tokens", hash: "#/tokens", ready: "tr[data-token]" },
    { name: "not-found", hash: "#/nowhere", ready: "main h1" },
  ];
}

/** Opens a page in a fresh document and waits until it shows its data. */
export async function openShowcasePage(page: Page, baseUrl: string, shown: ShowcasePage): Promise<void> {
  await page.goto("about:blank");
  await page.goto(`${baseUrl}/${shown.hash}`);
  await page.locator(shown.ready).first().waitFor({ state: "visible", timeout: 30_000 });
  // Every first answer in: a fresh document reaches network idle once (polls come 3 s apart).
  await page.waitForLoadState("networkidle", { timeout: 30_000 });
}
