import type { InstanceDetail, InstanceStatusView } from "@baton/actions";
import type { Command } from "commander";
import { act, type ContextFactory, examples } from "../command-kit.js";
import { resolveInstanceId } from "../last-instance.js";
import { formatJson, type Output } from "../output.js";
import { colorStatus } from "../style.js";

export function registerGet(program: Command, makeContext: ContextFactory): void {
  const get = program
    .command("get")
    .summary("show one instance")
    .description(
      "Shows an instance's status view; --detail adds its stored state, epochs and externalized objects; --resolve (implies --detail) splices externalized values back into the state. ID may be @last.",
    )
    .argument("<id>", "instance id, or @last")
    .option("-d, --detail", "show the detail view (state, epochs, objects)")
    .option("-r, --resolve", "with the detail view: splice externalized values into the state")
    .action(
      act(makeContext, async (ctx, [idArgument], options) => {
        const id = await resolveInstanceId(ctx.io, idArgument);
        const api = await ctx.api();
        const { out } = ctx;
        if (options.detail || options.resolve) {
          const detail = await api.call("getInstanceDetail", {
            params: { id },
            query: options.resolve ? { resolve: true } : {},
          });
          if (out.json) return out.printJson(detail);
          return printDetail(out, detail);
        }
        const view = await api.call("getInstance", { params: { id } });
        if (out.json) return out.printJson(view);
        printStatusView(out, view);
      }),
    );
  const object = program
    .command("object")
    .summary("print an externalized value by its ref")
    .description(
      "Prints a value stored outside an instance's state (listed under objects by baton get --detail) as JSON.",
    )
    .argument("<ref>", "the object's content hash")
    .action(
      act(makeContext, async (ctx, [ref]) => {
        const api = await ctx.api();
        ctx.out.printJson(await api.call("getObject", { params: { ref } }));
      }),
    );
  examples(object, ["baton object 4a22be2baf4b314c1ea5249105267143a16a93400e444a72fc0c88f8397d72f4 > value.json"]);

  examples(get, [
    "baton get @last",
    "baton get 01939d6e-8a5b-7c1e-9f00-2b6f1c2d3e4f --detail --resolve",
    "baton get @last --json",
  ]);
}

const LABEL_WIDTH = 18;

function field(out: Output, label: string, value: string): void {
  out.print(`${out.style.dim(`${label}:`.padEnd(LABEL_WIDTH))}${value}`);
}

function jsonField(out: Output, label: string, value: unknown): void {
  const lines = formatJson(value).split("\n");
  field(out, label, lines[0]);
  for (const line of lines.slice(1)) out.print(`${" ".repeat(LABEL_WIDTH)}${line}`);
}

export function printStatusView(out: Output, view: InstanceStatusView): void {
  field(out, "id", view.id);
  field(out, "process", `${view.process} v${view.version}`);
  field(out, "status", colorStatus(out.style, view.status));
  field(out, "task", view.task ?? "");
  field(out, "retry_count", String(view.retry_count));
  if (view.error_code) field(out, "error", `${view.error_code}${view.error_message ? `: ${view.error_message}` : ""}`);
  field(out, "created_at", view.created_at);
  field(out, "updated_at", view.updated_at);
  if (view.output !== undefined) jsonField(out, "output", view.output);
}

function printDetail(out: Output, detail: InstanceDetail): void {
  field(out, "id", detail.id);
  if (detail.parent_id) field(out, "parent", detail.parent_id);
  if (detail.root_id && detail.root_id !== detail.id) field(out, "root", detail.root_id);
  field(out, "process", `${detail.process} v${detail.version}`);
  field(out, "status", colorStatus(out.style, detail.status) + (detail.phase ? ` (${detail.phase})` : ""));
  field(out, "task", detail.task ?? "");
  // Flow control (docs/flow-control.md "Watching it"): why a running instance does not move.
  if (detail.waiting_for !== undefined) {
    const w = detail.waiting_for;
    const what = w.reason === "concurrency" ? "a slot of" : "a start permit of";
    field(out, "waiting_for", `${what} ${w.scope} with key "${w.key}" (limit ${w.limit}) since ${w.since}`);
  }
  field(out, "retry_count", String(detail.retry_count));
  field(out, "created_at", detail.created_at);
  field(out, "updated_at", detail.updated_at);
  field(
    out,
    "epochs",
    `lease ${detail.lease_epoch}, task ${detail.task_epoch}, parent task ${detail.parent_task_epoch}, external claim ${detail.external_claim_epoch}`,
  );
  field(out, "next_replayable", String(detail.next_replayable));
  jsonField(out, "state", detail.state);
  const objects = detail.objects ?? [];
  if (objects.length > 0) {
    // One line each, never cut: both the path and the ref are things people copy.
    out.print(out.style.dim("objects:"));
    for (const object of objects) out.print(`  ${object.path.join(".")}  ${object.size} bytes  ${object.ref}`);
  }
}
