import { type Json, parseJson, stringifyJson } from "@baton/expr";
import { type CompatReport, type DefinitionLimits, excuseMembers, onlyOnOneSide } from "@baton/model";
import { and, eq } from "drizzle-orm";
import type { Checker } from "../definitions/checker.js";
import { decodeRequestBatch } from "../definitions/decode-request.js";
import { getDefinition } from "../definitions/store.js";
import type { ActionHandlers } from "../http/action-handler.js";
import { invalid, notFound } from "../refusal.js";
import type { Db } from "../storage/db.js";
import { channels } from "../storage/schema/index.js";
import { requireDefinition } from "../definitions/store.js";
import { definitionLimitsOf } from "../limits.js";

type Selector = { channel: string } | { definitions: Json[] } | { versions: Record<string, number | string> };
type Side = "from" | "to";

interface Member {
  /** The definition as JSON text: the comparison runs on the checker thread, which parses it. */
  text: string;
  /** null for an unsaved definition. */
  version: number | null;
}

export const compatHandlers = {
  compatDefinitions: async ({ body }, { db, checker, config }) => {
    const { from, to, process, ignore } = body;
    const limits = definitionLimitsOf(config.limits);
    const before = await resolveSelector(checker, db, from, "from", limits);
    const after = await resolveSelector(checker, db, to, "to", limits);
    let names = [...new Set([...before.keys(), ...after.keys()])].sort();
    if (process !== undefined) {
      if (!names.includes(process))
        throw notFound(`process "${process}" is in neither the \`from\` nor the \`to\` set`);
      names = [process];
    }
    const excused = new Set(ignore ?? []);
    // Members' `compatible` are computed before excusing: they still report what was found.
    const reports = await compare(checker, limits.maxCompatSteps, names, before, after);
    const processes = reports.map((r) => excuseMembers(r, excused));
    return {
      body: {
        compatible: processes.every((r) => r.upgrade.compatible && r.contract.compatible),
        passes: processes.every((r) => !r.issues.some((i) => i.gating)),
        processes,
      },
    };
  },
} satisfies ActionHandlers;

/** One report per name, in order; comparing two versions runs on the checker thread (checker.ts). */
async function compare(
  checker: Checker,
  maxSteps: number,
  names: string[],
  before: Map<string, Member>,
  after: Map<string, Member>,
): Promise<CompatReport[]> {
  const both = names.filter((name) => before.has(name) && after.has(name));
  const pairs = both.map((name) => {
    const [from, to] = [before.get(name)!, after.get(name)!];
    return `[${from.text},${to.text},${from.version},${to.version}]`;
  });
  const compared = new Map<string, CompatReport>();
  if (pairs.length > 0) {
    const reply = await checker.run({ kind: "compare", pairs: `[${pairs.join(",")}]`, maxSteps });
    if (!reply.ok)
      throw invalid(
        `comparing the two versions of "${both[reply.tooLarge]}" takes more work than the limit of ${maxSteps} steps ` +
          `(--limit-compat-steps, docs/limits.md): the definitions are too large or differ too widely to compare`,
      );
    for (const [i, r] of (parseJson(reply.reports) as unknown as CompatReport[]).entries()) compared.set(both[i]!, r);
  }
  return names.map((name) => {
    const [from, to] = [before.get(name), after.get(name)];
    if (from === undefined) return onlyOnOneSide(name, "to", to!.version);
    if (to === undefined) return onlyOnOneSide(name, "from", from.version);
    return compared.get(name)!;
  });
}

async function resolveSelector(
  checker: Checker,
  db: Db,
  selector: Selector,
  side: Side,
  limits: DefinitionLimits,
): Promise<Map<string, Member>> {
  if ("channel" in selector) return channelMembers(db, selector.channel);
  if ("definitions" in selector) return unsavedMembers(checker, db, selector.definitions, side, limits);
  const members = new Map<string, Member>();
  for (const [name, ref] of Object.entries(selector.versions)) {
    if (typeof ref === "number") {
      const stored = await requireDefinition(db, name, ref);
      members.set(name, { text: stringifyJson(stored.definition), version: stored.version });
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

async function channelMembers(db: Db, channel: string): Promise<Map<string, Member>> {
  const rows = await db.select().from(channels).where(eq(channels.channel, channel));
  if (rows.length === 0) throw notFound(`channel "${channel}" points at no process`);
  const members = new Map<string, Member>();
  for (const row of rows) members.set(row.name, await stored(db, row.name, row.version));
  return members;
}

async function stored(db: Db, name: string, version: number): Promise<Member> {
  const found = await getDefinition(db, name, version);
  if (!found) throw notFound(`process "${name}" has no version ${version}`);
  return { text: stringifyJson(found.definition), version: found.version };
}

/** Decoded exactly as `PUT /definitions/batch` would (members may name each other as children). */
async function unsavedMembers(
  checker: Checker,
  db: Db,
  raws: Json[],
  side: Side,
  limits: DefinitionLimits,
): Promise<Map<string, Member>> {
  const checked = await decodeRequestBatch(checker, db, raws, `body.${side}.definitions`, { limits });
  return new Map(checked.map((d) => [d.name, { text: d.canonical, version: null }]));
}
