import { type Json } from "@baton/expr";
import {
  canonicalJson,
  type DecodeContext,
  type Definition,
  type DefinitionProblem,
  declaredRaises,
  decodeBatch,
  decodeDefinition,
  definitionHash,
  formatProblems,
  inferSchemas,
} from "@baton/model";
import { and, eq, gte, lt, type SQL } from "drizzle-orm";
import { childReferences } from "../definitions/child-references.js";
import { getDefinition, latestDefinition, latestRaisesByName, lockProcessName, type StoredDefinition } from "../definitions/store.js";
import type { ActionHandlers } from "../http/action-handler.js";
import { invalid, notFound } from "../http/api-error.js";
import { type ListSpec, mapPage, paginate } from "../http/pagination.js";
import type { Db } from "../storage/db.js";
import { channels, definitionPins, definitions } from "../storage/schema/index.js";
import { iso } from "../http/time.js";

type DefinitionRow = typeof definitions.$inferSelect;

const definitionList: ListSpec<DefinitionRow> = {
  list: "definitions",
  sorts: {
    created_at: { columns: [definitions.createdAt, definitions.name, definitions.version], values: (r) => [r.createdAt, r.name, r.version] },
    name: { columns: [definitions.name, definitions.version], values: (r) => [r.name, r.version] },
    version: { columns: [definitions.version, definitions.name], values: (r) => [r.version, r.name] },
  },
  defaultSort: "created_at",
  defaultOrder: "desc",
};

export function definitionSummary(row: DefinitionRow) {
  const raises = JSON.parse(row.raises) as string[];
  return {
    name: row.name,
    version: row.version,
    created_at: iso(row.createdAt),
    ...(row.actor ? { actor: row.actor } : {}),
    ...(raises.length ? { raises } : {}),
  };
}

async function decodeContext(db: Db, batchNames: string[] = []): Promise<DecodeContext> {
  const raises = await latestRaisesByName(db);
  return { processExists: (name) => raises.has(name), batchNames, processRaises: (name) => raises.get(name) };
}

/** 400 listing every problem; `fields` paths start at the request body. */
function refuse(problems: DefinitionProblem[], bodyPrefix: (p: DefinitionProblem) => string): never {
  // One sentence for people; every problem is in `fields` for tools.
  const first = formatProblems(problems.slice(0, 1)).split("\n")[0];
  const more = problems.length > 1 ? ` (and ${problems.length - 1} more problem${problems.length > 2 ? "s" : ""}, listed in fields)` : "";
  throw invalid(`${first}${more}`, problems.map((p) => ({ path: bodyPrefix(p), message: p.task ? `task "${p.task}": ${p.message}` : p.message })));
}

function joinPath(prefix: string, path: string): string {
  if (!path) return prefix;
  return path.startsWith("[") ? `${prefix}${path}` : `${prefix}.${path}`;
}

/**
 * Stores `def` as a new version unless its canonical form equals the latest version's.
 * Must run inside a transaction holding lockProcessName(def.name).
 */
async function saveDefinition(tx: Db, def: Definition, actor: string | null, now: number): Promise<{ version: number; saved: boolean }> {
  const hash = definitionHash(def);
  const latest = await latestDefinition(tx, def.name);
  if (latest && latest.hash === hash) return { version: latest.version, saved: false };
  const version = (latest?.version ?? 0) + 1;
  await tx.insert(definitions).values({
    name: def.name,
    version,
    definition: canonicalJson(def),
    hash,
    raises: JSON.stringify(declaredRaises(def)),
    actor,
    createdAt: now,
  });
  return { version, saved: true };
}

/** The version each definition would get if registered now (latest when unchanged). */
async function versionItWouldGet(db: Db, def: Definition): Promise<number> {
  const latest = await latestDefinition(db, def.name);
  if (!latest) return 1;
  return latest.hash === definitionHash(def) ? latest.version : latest.version + 1;
}

export const definitionHandlers: ActionHandlers = {
  putDefinition: async ({ body, principal }, { db, clock }) => {
    const decoded = decodeDefinition(body, await decodeContext(db));
    if (!decoded.ok) refuse(decoded.problems, (p) => joinPath("body", p.path));
    const def = decoded.definition;
    const result = await db.transaction(async (tx) => {
      await lockProcessName(tx as unknown as Db, def.name);
      return saveDefinition(tx as unknown as Db, def, principal.actor, clock.now());
    });
    return { body: { name: def.name, saved: result.saved, version: result.version } };
  },

  listDefinitions: async ({ query }, { db }) => {
    const filters: SQL[] = [];
    if (query.created_after !== undefined) filters.push(gte(definitions.createdAt, query.created_after));
    if (query.created_before !== undefined) filters.push(lt(definitions.createdAt, query.created_before));
    if (query.name !== undefined) filters.push(eq(definitions.name, query.name));
    const page = await paginate(db, definitions, and(...filters), definitionList, query);
    return { body: mapPage(page, definitionSummary) };
  },

  getDefinition: async ({ params }, { db }) => {
    const version = Number(params.version);
    const stored = await requireDefinition(db, params.name!, version);
    return {
      body: {
        name: stored.name,
        version: stored.version,
        created_at: iso(stored.createdAt),
        ...(stored.actor ? { actor: stored.actor } : {}),
        ...(stored.raises.length ? { raises: stored.raises } : {}),
        definition: stored.definition,
      },
    };
  },

  putDefinitionBatch: async ({ body, principal }, { db, clock }) => {
    const { definitions: raws, channel } = body as { definitions: Json[]; channel: string };
    const names = namesOf(raws);
    const decoded = decodeBatch(raws, await decodeContext(db, names.filter(Boolean)));
    if (!decoded.ok) refuse(decoded.problems, (p) => joinPath(`body.definitions${batchIndex(p, names)}`, p.path));
    const defs = decoded.definitions;
    const now = clock.now();
    const results = await db.transaction(async (txRaw) => {
      const tx = txRaw as unknown as Db;
      // Lock in name order so two batches over the same processes cannot deadlock.
      for (const name of [...new Set(defs.map((d) => d.name))].sort()) await lockProcessName(tx, name);
      const out: Array<{ name: string; version: number; saved: boolean; previous: number }> = [];
      for (const def of defs) {
        const saved = await saveDefinition(tx, def, principal.actor, now);
        const [current] = await tx
          .select({ version: channels.version })
          .from(channels)
          .where(and(eq(channels.channel, channel), eq(channels.name, def.name)));
        await tx
          .insert(channels)
          .values({ name: def.name, channel, version: saved.version, actor: principal.actor, updatedAt: now })
          .onConflictDoUpdate({ target: [channels.channel, channels.name], set: { version: saved.version, actor: principal.actor, updatedAt: now } });
        out.push({ name: def.name, version: saved.version, saved: saved.saved, previous: current?.version ?? 0 });
      }
      // Child references without a version are pinned to what the channel points at now.
      const onChannel = new Map(
        (await tx.select().from(channels).where(eq(channels.channel, channel))).map((r) => [r.name, r.version] as const),
      );
      for (const [i, def] of defs.entries()) {
        for (const ref of childReferences(def)) {
          if (ref.version) continue;
          const childVersion = onChannel.get(ref.child) ?? (await latestDefinition(tx, ref.child))?.version;
          if (childVersion === undefined) continue;
          await tx
            .insert(definitionPins)
            .values({ name: def.name, version: out[i]!.version, task: ref.task, child: ref.child, childVersion })
            .onConflictDoNothing();
        }
      }
      return out;
    });
    return { body: results };
  },

  validateDefinitions: async ({ body }, { db }) => {
    const raws = body as Json[];
    if (!Array.isArray(raws)) throw invalid("the request body must be an array of definitions");
    const names = namesOf(raws);
    const decoded = decodeBatch(raws, await decodeContext(db, names.filter(Boolean)));
    if (!decoded.ok) refuse(decoded.problems, (p) => joinPath(`body${batchIndex(p, names)}`, p.path));
    const results = [];
    for (const def of decoded.definitions) results.push(inferSchemas(def, await versionItWouldGet(db, def)));
    return { body: results };
  },
};

/** The `name` of each raw definition that has one, in order (for batch-member checks and paths). */
function namesOf(raws: Json[]): string[] {
  return raws.map((r) => {
    const name = (r as { name?: unknown } | null)?.name;
    return typeof name === "string" ? name : "";
  });
}

/** `[i]` of the batch member a problem belongs to (by process name), or "" when unknown. */
function batchIndex(problem: DefinitionProblem, names: string[]): string {
  const i = problem.process ? names.indexOf(problem.process) : -1;
  return i >= 0 ? `[${i}]` : "";
}

export async function requireDefinition(db: Db, name: string, version?: number): Promise<StoredDefinition> {
  if (version === undefined || version === 0) {
    const latest = await latestDefinition(db, name);
    if (!latest) throw notFound(`process "${name}" is not registered`);
    return latest;
  }
  const found = await getDefinition(db, name, version);
  if (found) return found;
  const latest = await latestDefinition(db, name);
  if (!latest) throw notFound(`process "${name}" is not registered`);
  throw notFound(`process "${name}" has no version ${version}; the latest is ${latest.version}`);
}


