import { type Json, parseWrittenJson } from "@baton/expr";
import type { Db } from "../storage/db.js";
import { listRefs, loadObjects, objectSizes, spliceRefs } from "../storage/objects.js";
import type { ExternalizedObject } from "@baton/actions";
import { type InstanceRecord, storedOutput } from "./instance-view.js";

interface Located {
  path: string[];
  ref: string;
}

/**
 * Splices stored objects no larger than `limit` back into `values` (each keyed by its top-level
 * name in the response) and lists every stored object left as a placeholder. limit < 0 splices
 * nothing. Placeholder-shaped data with no stored object is neither spliced nor listed.
 */
export async function showObjects(
  db: Db,
  values: Record<string, Json | undefined>,
  limit: number,
): Promise<{ values: Record<string, Json | undefined>; objects: ExternalizedObject[] }> {
  const located: Located[] = [];
  for (const [name, value] of Object.entries(values)) {
    if (value !== undefined) for (const r of listRefs(value)) located.push({ path: [name, ...r.path], ref: r.ref });
  }
  if (located.length === 0) return { values, objects: [] };
  const sizes = await objectSizes(
    db,
    located.map((l) => l.ref),
  );
  const splice = [...sizes].filter(([, size]) => size <= limit).map(([ref]) => ref);
  const loaded = await loadObjects(db, splice);
  const parsed = new Map<string, Json>();
  for (const [ref, hit] of loaded) parsed.set(ref, parseWrittenJson(hit.text));
  const out: Record<string, Json | undefined> = {};
  for (const [name, value] of Object.entries(values))
    out[name] = value === undefined || parsed.size === 0 ? value : spliceRefs(value, (ref) => parsed.get(ref));
  const objects = located
    .filter((l) => sizes.has(l.ref) && !parsed.has(l.ref))
    .map((l) => ({ path: l.path, ref: l.ref, size: sizes.get(l.ref)! }));
  return { values: out, objects };
}

/** Outputs shown in status views and list rows: objects within the resolve limit spliced back. */
export async function shownOutputs(
  db: Db,
  rows: InstanceRecord[],
  limit: number,
): Promise<Map<string, Json | undefined>> {
  const values: Record<string, Json | undefined> = {};
  for (const row of rows) values[row.id] = storedOutput(row);
  const shown = await showObjects(db, values, limit);
  return new Map(Object.entries(shown.values));
}
