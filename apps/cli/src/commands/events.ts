// `baton subscriptions`, `baton deliveries` and `baton hooks` (docs/events.md, docs/cli.md "Events").
import { readFileSync } from "node:fs";
import type { Delivery, EventType, HookBody, Subscription } from "@baton/actions";
import type { Command } from "commander";
import { UsageError } from "../cli-error.js";
import { act, type ContextFactory, examples } from "../command-kit.js";
import type { Context } from "../context.js";
import { parseYamlDocuments } from "../yaml-json.js";
import { addListOptions, showList } from "./list-options.js";

function subscriptionState(s: Subscription): string {
  if (s.suspended) return "suspended";
  return s.pending > 0 ? `${s.pending} pending` : "ok";
}

function printSubscription(ctx: Context, s: Subscription): void {
  const filters = [s.process && `process ${s.process}`, s.channel && `channel ${s.channel}`].filter(Boolean);
  ctx.out.print(`${s.name}: ${s.url}`);
  ctx.out.info(`  events ${s.events.join(", ")}${filters.length > 0 ? `; ${filters.join(", ")}` : ""}`);
  ctx.out.info(`  ${subscriptionState(s)}; ${s.failures_in_row} parked in a row`);
  if (s.suspended) ctx.out.info(`  suspended ${s.suspended_at}: ${s.suspended_reason}`);
  if (s.previous_secret_until) ctx.out.info(`  previous secret signs until ${s.previous_secret_until}`);
}

function deliveryRow(d: Delivery): string[] {
  return [
    d.id,
    d.event_id,
    d.type,
    d.status,
    String(d.attempts),
    d.last_status === null ? "-" : String(d.last_status),
    d.last_error ?? "-",
  ];
}

export function registerEvents(program: Command, makeContext: ContextFactory): void {
  const subscriptions = addListOptions(
    program
      .command("subscriptions")
      .summary("list event subscriptions, or create, show, rotate, resume, redeliver and delete one")
      .description("Lists the subscriptions that report events as signed webhooks (docs/events.md)."),
  ).action(
    act(makeContext, async (ctx, _args, options) => {
      await showList(ctx, "listSubscriptions", {}, options, "no subscriptions", (items) =>
        ctx.out.table(
          [{ header: "NAME" }, { header: "URL" }, { header: "EVENTS", dropOrder: 1 }, { header: "STATE", keep: true }],
          items.map((s) => [s.name, s.url, s.events.join(","), subscriptionState(s)]),
        ),
      );
    }),
  );
  examples(subscriptions, ["baton subscriptions", "baton subscriptions --json"]);

  const put = subscriptions
    .command("put")
    .description(
      "Creates or replaces subscription NAME. A new one without --secret gets a signing secret issued: it is printed this once.",
    )
    .argument("<name>", "subscription name")
    .requiredOption("--url <url>", "where events are POSTed")
    .requiredOption("--events <types>", "comma-separated event types, e.g. instance.completed,instance.failed")
    .option("--process <name>", "only events of this process")
    .option("--channel <name>", "only events of the version this channel points at")
    .option("--secret <whsec>", "a Standard Webhooks secret to sign with instead of an issued one")
    .action(
      act(makeContext, async (ctx, [name], options) => {
        const body = {
          url: options.url as string,
          events: String(options.events)
            .split(",")
            .map((e) => e.trim())
            .filter(Boolean) as EventType[],
          ...(options.process ? { process: options.process as string } : {}),
          ...(options.channel ? { channel: options.channel as string } : {}),
          ...(options.secret ? { secret: options.secret as string } : {}),
        };
        const s = await (await ctx.api()).call("putSubscription", { params: { name }, body });
        if (ctx.out.json) return ctx.out.printJson(s);
        ctx.out.print(`subscription ${s.name} (${s.created ? "created" : "replaced"})`);
        if (s.secret) ctx.out.print(`secret: ${s.secret}  (shown once: give it to the receiver now)`);
      }),
    );
  examples(put, [
    "baton subscriptions put orders-done --url https://hooks.example.com/baton --events instance.completed,instance.failed --process order",
  ]);

  subscriptions
    .command("show")
    .description("Shows subscription NAME (never its secret).")
    .argument("<name>", "subscription name")
    .action(
      act(makeContext, async (ctx, [name]) => {
        const s = await (await ctx.api()).call("getSubscription", { params: { name } });
        if (ctx.out.json) return ctx.out.printJson(s);
        printSubscription(ctx, s);
      }),
    );

  subscriptions
    .command("rotate-secret")
    .description("Issues a new signing secret for NAME; the previous one still signs during the overlap.")
    .argument("<name>", "subscription name")
    .option("--overlap <ms>", "how long the previous secret still signs, in ms (default one day)")
    .action(
      act(makeContext, async (ctx, [name], options) => {
        const overlap = options.overlap === undefined ? undefined : Number(options.overlap);
        if (overlap !== undefined && !Number.isInteger(overlap))
          throw new UsageError(`--overlap: "${options.overlap}" is not a number of ms`);
        const r = await (await ctx.api()).call("rotateSubscriptionSecret", {
          params: { name },
          body: overlap === undefined ? {} : { overlap_ms: overlap },
        });
        if (ctx.out.json) return ctx.out.printJson(r);
        ctx.out.print(`secret: ${r.secret}  (shown once); the previous one signs until ${r.previous_secret_until}`);
      }),
    );

  subscriptions
    .command("resume")
    .description("Lifts the suspension of subscription NAME; its waiting deliveries go out in order.")
    .argument("<name>", "subscription name")
    .action(
      act(makeContext, async (ctx, [name]) => {
        const s = await (await ctx.api()).call("resumeSubscription", { params: { name } });
        if (ctx.out.json) return ctx.out.printJson(s);
        ctx.out.info(`${s.name}: resumed, ${s.pending} pending`);
      }),
    );

  subscriptions
    .command("redeliver")
    .description("Sends again one delivery (--delivery) or every event of NAME recorded from --from to --to.")
    .argument("<name>", "subscription name")
    .option("--delivery <id>", "a delivery id of `baton deliveries NAME`")
    .option("--from <time>", "first instant, ISO 8601")
    .option("--to <time>", "last instant, ISO 8601")
    .action(
      act(makeContext, async (ctx, [name], options) => {
        let body: { delivery_id?: string; from?: string; to?: string };
        if (options.delivery) body = { delivery_id: String(options.delivery) };
        else if (options.from && options.to) {
          for (const key of ["from", "to"] as const)
            if (Number.isNaN(Date.parse(options[key])))
              throw new UsageError(`--${key}: "${options[key]}" is not an ISO 8601 time, e.g. 2026-01-01T00:00:00Z`);
          body = { from: new Date(options.from).toISOString(), to: new Date(options.to).toISOString() };
        } else throw new UsageError("give --delivery ID, or both --from and --to");
        const r = await (await ctx.api()).call("redeliver", { params: { name }, body });
        if (ctx.out.json) return ctx.out.printJson(r);
        ctx.out.print(`${r.queued} queued`);
      }),
    );

  subscriptions
    .command("delete")
    .description("Deletes subscription NAME and its deliveries.")
    .argument("<name>", "subscription name")
    .action(
      act(makeContext, async (ctx, [name]) => {
        const r = await (await ctx.api()).call("deleteSubscription", { params: { name } });
        if (ctx.out.json) return ctx.out.printJson(r);
        ctx.out.info(r.deleted ? `${name}: deleted` : `${name}: there was no such subscription`);
      }),
    );

  const deliveries = addListOptions(
    program
      .command("deliveries")
      .summary("a subscription's delivery log")
      .description("Lists the deliveries of SUBSCRIPTION, newest first: status, attempts, the last answer or error.")
      .argument("<subscription>", "subscription name")
      .option("--status <status>", "only pending, delivered or failed"),
  ).action(
    act(makeContext, async (ctx, [name], options) => {
      const query = options.status ? { status: options.status as Delivery["status"] } : {};
      await showList(ctx, "listDeliveries", { params: { name }, query }, options, "no deliveries", (items) =>
        ctx.out.table(
          [
            { header: "ID" },
            { header: "EVENT" },
            { header: "TYPE" },
            { header: "STATUS", keep: true },
            { header: "ATTEMPTS", dropOrder: 2 },
            { header: "HTTP", dropOrder: 1 },
            { header: "LAST ERROR", optional: true, dropOrder: 3 },
          ],
          items.map(deliveryRow),
        ),
      );
    }),
  );
  examples(deliveries, ["baton deliveries orders-done", "baton deliveries orders-done --status failed"]);

  const hooks = addListOptions(
    program
      .command("hooks")
      .summary("list inbound hooks, or create, show and delete one")
      .description('Lists the hooks other systems POST signed requests to (docs/events.md "Hooks").'),
  ).action(
    act(makeContext, async (ctx, _args, options) => {
      await showList(ctx, "listHooks", {}, options, "no hooks", (items) =>
        ctx.out.table(
          [{ header: "NAME" }, { header: "PATH" }, { header: "VERIFIER" }, { header: "DOES", keep: true }],
          items.map((h) => [
            h.name,
            h.path,
            h.verifier,
            h.start ? `start ${h.start.process}` : h.signal ? `signal ${h.signal.process}.${h.signal.task}` : "-",
          ]),
        ),
      );
    }),
  );
  examples(hooks, ["baton hooks", "baton hooks put github-push -f hook.yaml", "baton hooks show github-push"]);

  hooks
    .command("put")
    .description("Creates or replaces hook NAME from a YAML or JSON file holding the body of PUT /hooks/{name}.")
    .argument("<name>", "hook name")
    .requiredOption("-f, --file <path>", "the hook's body (verifier, secret, start or signal)")
    .action(
      act(makeContext, async (ctx, [name], options) => {
        const { documents, problems } = parseYamlDocuments(readFileSync(String(options.file), "utf8"));
        if (problems.length > 0 || documents.length !== 1)
          throw new UsageError(
            `${options.file}: expected one YAML or JSON document${problems[0] ? `: ${problems[0].message}` : ""}`,
          );
        const h = await (await ctx.api()).call("putHook", {
          params: { name },
          body: documents[0].value as unknown as HookBody,
        });
        if (ctx.out.json) return ctx.out.printJson(h);
        ctx.out.print(`hook ${h.name} (${h.created ? "created" : "replaced"}): senders POST to ${h.path}`);
      }),
    );

  hooks
    .command("show")
    .description("Shows hook NAME and the last requests it acted on (never its secret).")
    .argument("<name>", "hook name")
    .action(
      act(makeContext, async (ctx, [name]) => {
        const h = await (await ctx.api()).call("getHook", { params: { name } });
        if (ctx.out.json) return ctx.out.printJson(h);
        ctx.out.print(`${h.name}: ${h.path}, ${h.verifier}`);
        if (h.start) ctx.out.info(`  starts ${h.start.process}${h.start.channel ? `@${h.start.channel}` : ""}`);
        if (h.signal) ctx.out.info(`  signals ${h.signal.process} task ${h.signal.task} by business key`);
        for (const r of h.last_requests ?? [])
          ctx.out.info(`  ${r.received_at}  ${r.delivery_id}  ${r.outcome}${r.instance_id ? ` ${r.instance_id}` : ""}`);
      }),
    );

  hooks
    .command("delete")
    .description("Deletes hook NAME; what it started is untouched.")
    .argument("<name>", "hook name")
    .action(
      act(makeContext, async (ctx, [name]) => {
        const r = await (await ctx.api()).call("deleteHook", { params: { name } });
        if (ctx.out.json) return ctx.out.printJson(r);
        ctx.out.info(r.deleted ? `${name}: deleted` : `${name}: there was no such hook`);
      }),
    );
}
