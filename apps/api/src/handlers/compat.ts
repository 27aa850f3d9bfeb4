import type { CompatResponse } from "@baton/actions";
import { type Json, parseWrittenJsonInSteps, stringifyJson } from "@baton/expr";
import { type Definition, onlyOnOneSide } from "@baton/model";
import { type ScheduleWarning, scheduledOnChannel, scheduleWarnings } from "../engine/index.js";
import type { ComparedText } from "../definitions/check-jobs.js";
import { and, eq } from "drizzle-orm";
import type { Checker } from "../definitions/checker.js";
import { checkDefinitionRequest, type UnparsedBody } from "../definitions/decode-request.js";
import type { CheckedSelector } from "../definitions/request-job.js";
import { definitionText, requireDefinitionRow, storedDefinition } from "../definitions/store.js";
import { covers, requireInScope } from "../auth/scope.js";
import type { Principal } from "../auth/principal.js";
import type { ActionHandlers } from "../http/action-handler.js";
import { invalid, notFound } from "../refusal.js";
import type { Db } from "../storage/db.js";
import { channels } from "../storage/schema/index.js";
import { definitionLimitsOf } from "../limits.js";

type Side = "from" | "to";

interface Member {
  /** The definition as JSON text: the comparison runs on the checker thread, which parses it. */
  text: string;
  /** null for an unsaved definition. */
  version: number | null;
}

export const compatHandlers = {
  compatDefinitions: async ({ body, principal }, { db, checker, config }) => {
    const limits = definitionLimitsOf(config.limits);
    const visible = (name: string) => covers(principal.scopes, name);
    const request = await checkDefinitionRequest(
      checker,
      db,
      "compatDefinitions",
      body as unknown as UnparsedBody,
      limits,
      visible,
    );
    const { from, to, process, ignore } = request.compat!;
    const before = await resolveSelector(db, from, "from", principal);
    const after = await resolveSelector(db, to, "to", principal);
    let names = [...new Set([...before.keys(), ...after.keys()])].sort();
    if (process !== undefined) {
      if (!names.includes(process))
        throw notFound(`process "${process}" is in neither the \`from\` nor the \`to\` set`);
      names = [process];
    }
    const processes = await compare(checker, limits.maxCompatSteps, names, before, after, ignore ?? []);
    // The reports are text the checker thread wrote (docs/limits.md#the-checker-thread): the
    // event loop only joins them.
    const warnings = "channel" in from ? await channelScheduleWarnings(db, from.channel, after, names) : [];
    const text =
      `{"compatible":${processes.every((p) => p.compatible)},"passes":${processes.every((p) => p.passes)},` +
      `"processes":[${processes.map((p) => p.report).join(",")}]` +
      // Extension (docs/schedules.md "Checked before it runs"): only present when there is a warning.
      `${warnings.length > 0 ? `,"schedule_warnings":${stringifyJson(warnings as unknown as Json)}` : ""}}`;
    return { contentType: "application/json", body: text as unknown as CompatResponse };
  },
} satisfies ActionHandlers;

/**
 * The schedules bound to `channel` (the side that would move) that the `after` versions would
 * start with an input they refuse. A definition is parsed only for a process such a schedule starts.
 */
async function channelScheduleWarnings(
  db: Db,
  channel: string,
  after: Map<string, Member>,
  names: string[],
): Promise<ScheduleWarning[]> {
  const bound = await scheduledOnChannel(db, channel);
  const next = new Map<string, { definition: Definition; version: number | null }>();
  for (const name of names) {
    const member = after.get(name);
    if (member === undefined || !bound.has(name)) continue;
    const definition =
      member.version === null ? await parsedInSteps(member.text) : await storedDefinition(db, name, member.version);
    if (definition !== undefined) next.set(name, { definition, version: member.version });
  }
  return scheduleWarnings(db, channel, next);
}

/** An unsaved definition's canonical text, parsed a step at a time (it may be megabytes). */
async function parsedInSteps(text: string): Promise<Definition> {
  const steps = parseWrittenJsonInSteps(text);
  for (let step = steps.next(); ; step = steps.next()) {
    if (step.done) return step.value as unknown as Definition;
    await new Promise((resolve) => setImmediate(resolve));
  }
}

/** One report per name, in order; comparing two versions runs on the checker thread (checker.ts). */
async function compare(
  checker: Checker,
  maxSteps: number,
  names: string[],
  before: Map<string, Member>,
  after: Map<string, Member>,
  ignore: string[],
): Promise<ComparedText[]> {
  const both = names.filter((name) => before.has(name) && after.has(name));
  const pairs = both.map((name) => {
    const [from, to] = [before.get(name)!, after.get(name)!];
    return `[${from.text},${to.text},${from.version},${to.version}]`;
  });
  const compared = new Map<string, ComparedText>();
  if (pairs.length > 0) {
    const reply = await checker.run({ kind: "compare", pairs: `[${pairs.join(",")}]`, maxSteps, ignore });
    if (!reply.ok && "fault" in reply) throw invalid(reply.fault);
    if (!reply.ok)
      throw invalid(
        `comparing the two versions of "${both[reply.tooLarge]}" takes more work than the limit of ${maxSteps} steps ` +
          `(--limit-compat-steps, docs/limits.md): the definitions are too large or differ too widely to compare`,
      );
    for (const [i, r] of reply.compared.entries()) compared.set(both[i]!, r);
  }
  return names.map((name) => {
    const [from, to] = [before.get(name), after.get(name)];
    if (from !== undefined && to !== undefined) return compared.get(name)!;
    const report =
      from === undefined ? onlyOnOneSide(name, "to", to!.version) : onlyOnOneSide(name, "from", from.version);
    return { report: stringifyJson(report as unknown as Json), compatible: true, passes: true };
  });
}

/**
 * A selector's members. docs/auth.md "Scopes": a channel shows a scoped caller only the
 * processes its scopes cover (one with none of them points at no process, as an empty one);
 * a definition or version it names outside them refuses the whole request, naming it.
 */
async function resolveSelector(
  db: Db,
  selector: CheckedSelector,
  side: Side,
  principal: Principal,
): Promise<Map<string, Member>> {
  if ("channel" in selector) return channelMembers(db, selector.channel, principal);
  // Unsaved definitions were decoded with the request, as `PUT /definitions/batch` would decode them.
  if ("decoded" in selector) {
    for (const [i, d] of selector.decoded.entries())
      requireInScope(principal, d.name, `body.${side}.definitions[${i}].name`);
    return new Map(selector.decoded.map((d) => [d.name, { text: d.canonical, version: null }]));
  }
  const members = new Map<string, Member>();
  for (const name of Object.keys(selector.versions)) requireInScope(principal, name, `body.${side}.versions.${name}`);
  for (const [name, ref] of Object.entries(selector.versions)) {
    if (typeof ref === "number") {
      const row = await requireDefinitionRow(db, name, ref);
      members.set(name, { text: row.definition, version: row.version });
      continue;
    }
    const [row] = await db
      .select()
      .from(channels)
      .where(and(eq(channels.channel, ref), eq(channels.name, name)));
    if (!row) throw notFound(`process "${name}" is not on channel "${ref}" (body.${side}.versions.${name})`);
    members.set(name, await stored(db, name, row.version));
  }
  return members;
}

async function channelMembers(db: Db, channel: string, principal: Principal): Promise<Map<string, Member>> {
  const rows = (await db.select().from(channels).where(eq(channels.channel, channel))).filter((row) =>
    covers(principal.scopes, row.name),
  );
  if (rows.length === 0) throw notFound(`channel "${channel}" points at no process`);
  const members = new Map<string, Member>();
  for (const row of rows) members.set(row.name, await stored(db, row.name, row.version));
  return members;
}

/** A stored version as its stored canonical text: the thread parses it, the event loop never does. */
async function stored(db: Db, name: string, version: number): Promise<Member> {
  const text = await definitionText(db, name, version);
  if (text === undefined) throw notFound(`process "${name}" has no version ${version}`);
  return { text, version };
}
