// `baton <verb> --where …`: a lifecycle verb over every root the filters select, through
// POST /instances/bulk/{verb} (docs/cli.md "Bulk verbs"), following the cursor to the end.
import { BULK_ACTIONS, type BulkBody, type BulkResult, type BulkVerb } from "@baton/actions";
import { CliError, UsageError } from "../cli-error.js";
import type { Context } from "../context.js";
import { ExitCode } from "../exit-code.js";

const NUMBER_KEYS = ["version", "created_after", "created_before", "updated_after", "updated_before"] as const;
const TEXT_KEYS = ["status", "phase", "task", "error_code", "process", "key"] as const;
const TIME_KEYS: readonly string[] = ["created_after", "created_before", "updated_after", "updated_before"];

/**
 * `status=failed,error_code=http.503` → the bulk body's filters. A part without `=` continues
 * the previous value, so `status=failed,raised` keeps both statuses.
 */
export function parseWhere(text: string): BulkBody {
  const filters: Record<string, string | number> = {};
  let last: string | undefined;
  for (const part of text.split(",")) {
    const at = part.indexOf("=");
    if (at < 0) {
      if (last === undefined || last !== "status")
        throw new UsageError(
          `--where: "${part}" is not key=value; expected e.g. status=failed,error_code=http.503 (only status takes several values)`,
        );
      filters.status = `${filters.status},${part}`;
      continue;
    }
    const key = part.slice(0, at).trim();
    const value = part.slice(at + 1).trim();
    if (!(TEXT_KEYS as readonly string[]).includes(key) && !(NUMBER_KEYS as readonly string[]).includes(key))
      throw new UsageError(
        `--where: unknown filter "${key}"; expected one of ${[...TEXT_KEYS, ...NUMBER_KEYS].join(", ")}`,
      );
    if (value === "") throw new UsageError(`--where: "${key}" has no value`);
    if ((NUMBER_KEYS as readonly string[]).includes(key)) {
      const number = /^[0-9]+$/.test(value) ? Number(value) : TIME_KEYS.includes(key) ? Date.parse(value) : Number.NaN;
      if (!Number.isFinite(number))
        throw new UsageError(
          `--where: "${key}" must be ${TIME_KEYS.includes(key) ? "unix ms or an ISO 8601 time" : "a number"}, got "${value}"`,
        );
      filters[key] = number;
    } else filters[key] = value;
    last = key;
  }
  return filters as BulkBody;
}

/** Calls the bulk verb until its cursor runs out; prints the summed outcomes. Exit 1 when a root was refused. */
export async function runBulk(
  ctx: Context,
  verb: BulkVerb,
  where: string,
  options: { dryRun?: boolean; limit?: number; extra?: Record<string, unknown> },
): Promise<void> {
  const api = await ctx.api();
  const base = { ...parseWhere(where), ...options.extra, ...(options.dryRun ? { dry_run: true } : {}) };
  const total: BulkResult = { dry_run: Boolean(options.dryRun), counts: {}, ids: {}, refused: [], next_cursor: null };
  let cursor: string | null = null;
  do {
    const body = { ...base, ...(options.limit ? { limit: options.limit } : {}), ...(cursor ? { cursor } : {}) };
    const page = (await api.call(BULK_ACTIONS[verb], { body } as never)) as BulkResult;
    for (const [outcome, ids] of Object.entries(page.ids)) (total.ids[outcome] ??= []).push(...ids);
    total.refused.push(...page.refused);
    cursor = page.next_cursor;
  } while (cursor);
  for (const [outcome, ids] of Object.entries(total.ids)) total.counts[outcome] = ids.length;
  const { out } = ctx;
  if (out.json) out.printJson(total);
  else {
    const summary = Object.entries(total.counts)
      .map(([outcome, n]) => `${outcome} ${n}`)
      .join(", ");
    out.info(`${options.dryRun ? "dry run: " : ""}${verb} --where ${where}: ${summary || "no matching roots"}`);
    if (options.dryRun) for (const id of total.ids.matched ?? []) out.info(`  ${id}`);
    for (const refusal of total.refused)
      ctx.io.stderr.write(`refused   ${refusal.id}: ${refusal.code}: ${refusal.error}\n`);
  }
  if (total.refused.length > 0)
    throw new CliError(
      `${total.refused.length} root${total.refused.length === 1 ? " was" : "s were"} refused`,
      ExitCode.failed,
    );
}
