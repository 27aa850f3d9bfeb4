import type { Definition } from "@baton/model";
import { parseWrittenJsonInSteps } from "@baton/expr";
import { and, desc, eq, inArray, like, sql } from "drizzle-orm";
import { notFound } from "../refusal.js";
import { type Db, executePrepared, rowsOf } from "../storage/db.js";
import { perDbLruCache } from "../storage/per-db-cache.js";
import { definitionPins, definitions } from "../storage/schema/index.js";
import { definitionCacheBound, definitionWeight, weighDefinition } from "./cache-bound.js";
import { keepText, keptText } from "./text-cache.js";

// The one reader of stored definitions: start, the engine (engine/pump/compiled-cache.ts),
// external tasks, the secrets of views, the operator verbs and the handlers all read them here. A stored
// (name, version) never changes, so its parsed form is cached per database handle — `db`, the
// database, even when the read goes through a transaction (`via`); tests open several databases
// in one process and must not share entries; least recently used out first past
// --limit-definition-cache characters of their text (docs/limits.md#cached-definitions). Only hits are cached: a version missing now may be
// registered a moment later. Its text is kept too (text-cache.ts, bounded), and every read of a
// version reads the short columns first, so a version read once is never read whole again while
// it is kept: on PGlite a read of the largest one holds the event loop
// (docs/limits.md#reading-a-large-stored-definition).

const parsedOf = perDbLruCache<Definition>({ bound: definitionCacheBound, weigh: definitionWeight });

/**
 * Parses a stored definition's text once per database while it is kept (concurrent readers
 * share the parse); rejects with SyntaxError on corrupt text, which is then parsed again by the next reader.
 */
function parsed(db: Db, name: string, version: number, text: string): Promise<Definition> {
  return parsedOf(db).load(`${version}:${name}`, () => parseInSteps(text));
}

/**
 * Canonical text this server wrote (no duplicate keys): the fast exact parse, in steps of about
 * 64 KiB with a turn of the event loop between them, so the largest definition (2.8 MB, 30–230 ms
 * to parse at once) never holds the loop for its whole parse
 * (docs/limits.md#reading-a-large-stored-definition).
 */
async function parseInSteps(text: string): Promise<Definition> {
  const steps = parseWrittenJsonInSteps(text);
  for (let step = steps.next(); ; step = steps.next()) {
    if (step.done) {
      const def = step.value as unknown as Definition;
      weighDefinition(def, text.length);
      return def;
    }
    await new Promise((resolve) => setImmediate(resolve));
  }
}

/** The definition stored as (name, version), or undefined; read through `via` (a transaction) when given. */
export async function storedDefinition(
  db: Db,
  name: string,
  version: number,
  via: Db = db,
): Promise<Definition | undefined> {
  const hit = parsedOf(db).get(`${version}:${name}`);
  if (hit !== undefined) return hit;
  const text = await storedText(db, name, version, via);
  return text === undefined ? undefined : parsed(db, name, version, text);
}

/**
 * Keeps the text just stored as (name, version), so its first read does not read the row back
 * (on PGlite that read holds the event loop). Only after the transaction that stored it has
 * committed: a version rolled back may be registered again with other text.
 */
export function keepStoredText(db: Db, name: string, version: number, text: string): void {
  keepText(db, name, version, text);
}

/** The stored text of (name, version), kept or read (and then kept), or undefined. */
async function storedText(db: Db, name: string, version: number, via: Db = db): Promise<string | undefined> {
  const kept = keptText(db, name, version);
  if (kept !== undefined) return kept;
  const [row] = await via
    .select({ definition: definitions.definition })
    .from(definitions)
    .where(and(eq(definitions.name, name), eq(definitions.version, version)))
    .limit(1);
  if (row !== undefined) keepText(db, name, version, row.definition);
  return row?.definition;
}

/** Every stored definition that declares settings (a cheap text filter first). */
export async function definitionsDeclaringConfig(db: Db): Promise<Definition[]> {
  const rows = await db
    .select({ name: definitions.name, version: definitions.version, definition: definitions.definition })
    .from(definitions)
    .where(like(definitions.definition, '%"config_schema"%'));
  return Promise.all(rows.map((r) => parsed(db, r.name, r.version, r.definition)));
}

/** Every stored definition that declares a secret (a cheap text filter first; secretValues decides). */
export async function definitionsDeclaringSecrets(db: Db): Promise<Definition[]> {
  const rows = await db
    .select({ name: definitions.name, version: definitions.version, definition: definitions.definition })
    .from(definitions)
    .where(like(definitions.definition, '%"secret"%'));
  return Promise.all(rows.map((r) => parsed(db, r.name, r.version, r.definition)));
}

/**
 * Every stored version of each of `names`. Only the versions not parsed yet are read whole:
 * a view looks up its tree's processes on every registration, and reading every version's
 * text each time would read megabytes per view of a large process.
 */
export async function definitionsNamed(db: Db, names: readonly string[]): Promise<Definition[]> {
  const heads = await db
    .select({ name: definitions.name, version: definitions.version })
    .from(definitions)
    .where(inArray(definitions.name, [...names]));
  const found = await Promise.all(heads.map((h) => storedDefinition(db, h.name, h.version)));
  return found.filter((def) => def !== undefined);
}

export interface StoredDefinition {
  name: string;
  version: number;
  definition: Definition;
  hash: string;
  raises: string[];
  actor: string | null;
  createdAt: number;
}

type Row = typeof definitions.$inferSelect;
/** A stored version's short columns: everything but its text. */
type Head = Omit<Row, "definition">;

const headColumns = {
  name: definitions.name,
  version: definitions.version,
  hash: definitions.hash,
  raises: definitions.raises,
  actor: definitions.actor,
  createdAt: definitions.createdAt,
};

/** The version a head names, parsed (cached) or read and parsed; a head is only read for a stored version. */
async function toStored(db: Db, head: Head): Promise<StoredDefinition> {
  const definition = await storedDefinition(db, head.name, head.version);
  if (definition === undefined) throw new Error(`process "${head.name}" version ${head.version} vanished`);
  return { ...head, definition, raises: JSON.parse(head.raises) as string[] };
}

/** A head with its text, kept or read. */
async function withText(db: Db, head: Head): Promise<Row> {
  const text = await storedText(db, head.name, head.version);
  if (text === undefined) throw new Error(`process "${head.name}" version ${head.version} vanished`);
  return { ...head, definition: text };
}

async function latestRow(db: Db, name: string): Promise<Head | undefined> {
  const [row] = await db
    .select(headColumns)
    .from(definitions)
    .where(eq(definitions.name, name))
    .orderBy(desc(definitions.version))
    .limit(1);
  return row;
}

async function exactRow(db: Db, name: string, version: number): Promise<Head | undefined> {
  const [row] = await db
    .select(headColumns)
    .from(definitions)
    .where(and(eq(definitions.name, name), eq(definitions.version, version)))
    .limit(1);
  return row;
}

/** The latest version of a process, or undefined when the name was never registered. */
export async function latestDefinition(db: Db, name: string): Promise<StoredDefinition | undefined> {
  const row = await latestRow(db, name);
  return row ? toStored(db, row) : undefined;
}

export async function getDefinition(db: Db, name: string, version: number): Promise<StoredDefinition | undefined> {
  const row = await exactRow(db, name, version);
  return row ? toStored(db, row) : undefined;
}

/**
 * Every registered process as [name, the codes its latest version raises, that version, its
 * hash]: what the registration checks of a request need (request-job.ts).
 */
export async function registeredProcesses(db: Db): Promise<Array<[string, string[], number, string]>> {
  const rows = await db
    .select({
      name: definitions.name,
      raises: definitions.raises,
      version: definitions.version,
      hash: definitions.hash,
    })
    .from(definitions)
    .where(
      sql`(${definitions.name}, ${definitions.version}) in (select name, max(version) from definitions group by name)`,
    );
  return rows.map((r) => [r.name, JSON.parse(r.raises) as string[], r.version, r.hash]);
}

/**
 * Serialises registrations of one process name across replicas for the rest of the
 * transaction, so two concurrent PUTs cannot both take version N+1.
 */
export async function lockProcessName(tx: Db, name: string): Promise<void> {
  await tx.execute(sql`select pg_advisory_xact_lock(hashtext(${`baton.definition:${name}`}))`);
}

/**
 * The stored row of a definition by name and version (omitted or 0: the latest), or a not_found
 * refusal naming the latest version when only the version is missing. Its `definition` is the
 * canonical text, unparsed: what the checker thread takes, and what GET answers as it is.
 */
export async function requireDefinitionRow(db: Db, name: string, version?: number): Promise<Row> {
  return withText(db, await requireHead(db, name, version));
}

/** A stored definition by name and version (omitted or 0: the latest), parsed; refusals as requireDefinitionRow. */
export async function requireDefinition(db: Db, name: string, version?: number): Promise<StoredDefinition> {
  return toStored(db, await requireHead(db, name, version));
}

async function requireHead(db: Db, name: string, version?: number): Promise<Head> {
  if (version === undefined || version === 0) {
    const row = await latestRow(db, name);
    if (!row) throw notFound(`process "${name}" is not registered`);
    return row;
  }
  const found = await exactRow(db, name, version);
  if (found) return found;
  const last = await latestHead(db, name);
  if (last === undefined) throw notFound(`process "${name}" is not registered`);
  throw notFound(`process "${name}" has no version ${version}; latest is ${last.version}`);
}

/** The latest version number of a process and its hash (not its text), or undefined when the name was never registered. */
export async function latestHead(db: Db, name: string): Promise<{ version: number; hash: string } | undefined> {
  const [row] = await db
    .select({ version: definitions.version, hash: definitions.hash })
    .from(definitions)
    .where(eq(definitions.name, name))
    .orderBy(desc(definitions.version))
    .limit(1);
  return row;
}

/**
 * The canonical text stored as (name, version), unparsed, or undefined: for work done on the
 * checker thread (docs/limits.md#the-checker-thread), so the event loop never parses or writes
 * out a large definition for it.
 */
export function definitionText(db: Db, name: string, version: number): Promise<string | undefined> {
  return storedText(db, name, version);
}

/** Whether (name, version) is stored, without reading its text. */
export async function definitionExists(db: Db, name: string, version: number): Promise<boolean> {
  const [row] = await db
    .select({ version: definitions.version })
    .from(definitions)
    .where(and(eq(definitions.name, name), eq(definitions.version, version)))
    .limit(1);
  return row !== undefined;
}

/** The child versions a channel batch pinned for version `version` of `name`, one row per (task, child). */
export function pinsOf(db: Db, name: string, version: number) {
  return db
    .select()
    .from(definitionPins)
    .where(and(eq(definitionPins.name, name), eq(definitionPins.version, version)));
}

/**
 * The version pinned for this task's child by a channel batch, else the latest registered — one
 * round trip, prepared: a tree runs it once per parent visit (docs/performance.md).
 */
export async function pinnedOrLatestVersion(
  db: Db,
  parent: { process: string; version: number },
  task: string,
  child: string,
): Promise<number | undefined> {
  const rows = rowsOf<{ picked: number | null }>(
    await executePrepared(
      db,
      sql`
      SELECT COALESCE(
        (SELECT child_version FROM definition_pins
         WHERE name = ${parent.process} AND version = ${parent.version} AND task = ${task} AND child = ${child}),
        (SELECT max(version) FROM definitions WHERE name = ${child})) AS picked`,
    ),
  );
  return rows[0]?.picked === null || rows[0]?.picked === undefined ? undefined : Number(rows[0].picked);
}
