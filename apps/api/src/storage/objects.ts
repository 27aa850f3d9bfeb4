import { isLosslessNumber, type Json, parseWrittenJson, stringifyJson } from "@baton/expr";
import { inArray, sql } from "drizzle-orm";
import type { Clock } from "../clock.js";
import type { Db } from "./db.js";
import { keyedRef } from "./object-key.js";
import { objects } from "./schema/index.js";

// Externalized values: a subtree of a state/output JSON value is stored once in `objects`
// under a keyed hash of its JSON text (object-key.ts) and replaced by the placeholder {"$ref": "<hex>"}.
// A stored object never contains placeholders itself (it is always an original subtree), so
// GET /objects/{ref} returns plain data and resolving is one round trip.

export type ObjectRef = string;

const REF_PATTERN = /^[0-9a-f]{64}$/;

/** Byte length of `{"$ref":"<64 hex>"}`: replacing anything smaller grows the row. */
const PLACEHOLDER_BYTES = 75;

export function isObjectRef(text: string): boolean {
  return REF_PATTERN.test(text);
}

/** `{"$ref": "<64 hex>"}` and nothing else. */
export function isPlaceholder(value: Json): value is { $ref: string } {
  if (value === null || typeof value !== "object" || Array.isArray(value) || isLosslessNumber(value)) return false;
  const keys = Object.keys(value);
  return keys.length === 1 && keys[0] === "$ref" && typeof value.$ref === "string" && REF_PATTERN.test(value.$ref);
}

export function refOf(jsonText: string): ObjectRef {
  return keyedRef(jsonText);
}

/** Where every placeholder sits in `value` (array indices as decimal strings), in document order. */
export function listRefs(value: Json): Array<{ path: string[]; ref: string }> {
  const out: Array<{ path: string[]; ref: string }> = [];
  const walk = (node: Json, path: string[]) => {
    if (node === null || typeof node !== "object" || isLosslessNumber(node)) return;
    if (isPlaceholder(node)) {
      out.push({ path, ref: node.$ref });
      return;
    }
    if (Array.isArray(node)) {
      for (let i = 0; i < node.length; i++) walk(node[i] as Json, [...path, String(i)]);
    } else for (const [key, item] of Object.entries(node)) walk(item, [...path, key]);
  };
  walk(value, []);
  return out;
}

export function hasPlaceholder(value: Json): boolean {
  if (value === null || typeof value !== "object" || isLosslessNumber(value)) return false;
  if (isPlaceholder(value)) return true;
  return (Array.isArray(value) ? value : Object.values(value)).some(hasPlaceholder);
}

export interface PlannedObject {
  ref: ObjectRef;
  text: string;
  size: number;
}

/**
 * Pure half of `externalize`: the value to store and the objects to insert.
 *
 * The value passed in is never replaced itself (a state stays an object with `input`,
 * `outputs`, `_children`). Any container whose JSON exceeds the threshold is shrunk by
 * replacing its largest members first (a member over the threshold is shrunk the same way,
 * recursively) until it fits; small members stay inline. A nested container that cannot be
 * made to fit that way (many small members) is stored whole instead. So a big task output
 * lands at ["outputs","big"], and several medium outputs that only together exceed the
 * threshold are stored one by one, which keeps refs stable across advances (an unchanged
 * output hashes to the same ref) instead of re-storing the whole `outputs` map each time.
 * Placeholders already in `value` are kept, and nothing that contains one is stored.
 */
export function planExternalize(value: Json, thresholdBytes: number): { value: Json; objects: PlannedObject[] } {
  // Members smaller than this are not worth a row: the placeholder alone is 75 bytes.
  const worthStoring = Math.max(2 * PLACEHOLDER_BYTES, Math.floor(thresholdBytes / 4));
  const planned = new Map<ObjectRef, PlannedObject>();

  interface Shrunk {
    value: Json;
    size: number;
  }

  const store = (node: Json): Shrunk => {
    const text = stringifyJson(node);
    const ref = refOf(text);
    if (!planned.has(ref)) planned.set(ref, { ref, text, size: Buffer.byteLength(text) });
    return { value: { $ref: ref }, size: PLACEHOLDER_BYTES };
  };

  const shrink = (node: Json, size: number, isRoot: boolean): Shrunk => {
    if (size <= thresholdBytes || isPlaceholder(node)) return { value: node, size };
    if (node === null || typeof node !== "object" || isLosslessNumber(node))
      return isRoot ? { value: node, size } : store(node);
    const keys = Array.isArray(node) ? node.map((_, i) => i) : Object.keys(node);
    const children = keys.map((key) => {
      const child = (node as Record<string | number, Json>)[key] as Json;
      return { key, child, size: jsonSize(child) };
    });
    children.sort((a, b) => b.size - a.size);
    const replaced = new Map<string | number, Json>();
    let current = size;
    for (const entry of children) {
      if (current <= thresholdBytes) break;
      if (isPlaceholder(entry.child)) continue;
      let result: Shrunk;
      if (entry.size > thresholdBytes) result = shrink(entry.child, entry.size, false);
      else if (entry.size < worthStoring) break;
      else if (hasPlaceholder(entry.child)) continue;
      else result = store(entry.child);
      replaced.set(entry.key, result.value);
      current += result.size - entry.size;
    }
    // Stored whole: its members' planned objects become unused and are filtered out below.
    // Never when it holds placeholders: objects must stay plain data (no nested refs), so
    // such a container stays inline, over the threshold, with its members' placeholders.
    if (current > thresholdBytes && !isRoot && !hasPlaceholder(node)) return store(node);
    const out: Json = Array.isArray(node) ? [...node] : { ...node };
    for (const [key, shrunk] of replaced) (out as Record<string | number, Json>)[key] = shrunk;
    return { value: out, size: current };
  };

  const result = shrink(value, jsonSize(value), true);
  const used = new Set(listRefs(result.value).map((r) => r.ref));
  return { value: result.value, objects: [...planned.values()].filter((o) => used.has(o.ref)) };
}

/**
 * Replaces oversized subtrees of `value` by placeholders (see planExternalize) and inserts
 * their objects (insertObjects).
 * Call inside the transaction that stores the returned value. Placeholders already in
 * `value` are kept as they are.
 */
export async function externalize(tx: Db, clock: Clock, value: Json, thresholdBytes: number): Promise<Json> {
  const plan = planExternalize(value, thresholdBytes);
  await insertObjects(tx, clock, plan.objects);
  return plan.value;
}

/**
 * Stores planned objects. Content-addressed, so a duplicate is the same row; it only gets its
 * `created_at` (= last stored) refreshed. Retention relies on that update (docs/retention.md):
 * it row-locks an object that is being stored again, so the pruner, which deletes an
 * unreferenced object only while `created_at` is older than the retention, either waits for
 * this write and then sees it fresh, or deletes first and this insert stores the object anew.
 */
export async function insertObjects(tx: Db, clock: Clock, planned: readonly PlannedObject[]): Promise<void> {
  if (planned.length === 0) return;
  const createdAt = clock.now();
  // One row per ref (an upsert may not touch a row twice), in ref order: two batches storing
  // the same objects lock them in the same order and cannot deadlock.
  const rows = [...new Map(planned.map((o) => [o.ref, o])).values()].sort((a, b) => (a.ref < b.ref ? -1 : 1));
  await tx
    .insert(objects)
    .values(rows.map((o) => ({ ref: o.ref, value: o.text, size: o.size, createdAt })))
    .onConflictDoUpdate({ target: objects.ref, set: { createdAt: sql`excluded.created_at` } });
}

/** The stored objects among `refs` (unknown refs are simply absent). */
export async function loadObjects(
  tx: Db,
  refs: readonly string[],
): Promise<Map<string, { text: string; size: number }>> {
  const unique = [...new Set(refs)].filter(isObjectRef);
  const found = new Map<string, { text: string; size: number }>();
  if (unique.length === 0) return found;
  const rows = await tx
    .select({ ref: objects.ref, value: objects.value, size: objects.size })
    .from(objects)
    .where(inArray(objects.ref, unique));
  for (const row of rows) found.set(row.ref, { text: row.value, size: row.size });
  return found;
}

/** Sizes (bytes of JSON) of the stored objects among `refs`, without loading their values. */
export async function objectSizes(tx: Db, refs: readonly string[]): Promise<Map<string, number>> {
  const unique = [...new Set(refs)].filter(isObjectRef);
  const sizes = new Map<string, number>();
  if (unique.length === 0) return sizes;
  const rows = await tx
    .select({ ref: objects.ref, size: objects.size })
    .from(objects)
    .where(inArray(objects.ref, unique));
  for (const row of rows) sizes.set(row.ref, row.size);
  return sizes;
}

/** One stored value, parsed losslessly; undefined when unknown. */
export async function loadObject(tx: Db, ref: string): Promise<Json | undefined> {
  const found = await loadObjects(tx, [ref]);
  const hit = found.get(ref);
  return hit ? parseWrittenJson(hit.text) : undefined;
}

/**
 * `value` with every placeholder replaced by its stored value. A placeholder-shaped value
 * with no stored object (user data that happens to look like one) is left as it is.
 */
export async function resolveRefs(tx: Db, value: Json): Promise<Json> {
  const refs = listRefs(value);
  if (refs.length === 0) return value;
  const found = await loadObjects(
    tx,
    refs.map((r) => r.ref),
  );
  return spliceRefs(value, (ref) => {
    const hit = found.get(ref);
    return hit ? parseWrittenJson(hit.text) : undefined;
  });
}

/** A copy of `value` where each placeholder for which `lookup` returns a value is replaced by it. */
export function spliceRefs(value: Json, lookup: (ref: string) => Json | undefined): Json {
  const walk = (node: Json): Json => {
    if (node === null || typeof node !== "object" || isLosslessNumber(node)) return node;
    if (isPlaceholder(node)) {
      const hit = lookup(node.$ref);
      return hit === undefined ? node : hit;
    }
    if (Array.isArray(node)) return node.map(walk);
    const out: { [key: string]: Json } = {};
    for (const [key, item] of Object.entries(node)) out[key] = walk(item);
    return out;
  };
  return walk(value);
}

/** UTF-8 byte length of stringifyJson(value), without building the text. */
export function jsonSize(value: Json): number {
  if (value === null) return 4;
  switch (typeof value) {
    case "boolean":
      return value ? 4 : 5;
    case "number":
      return JSON.stringify(value).length;
    case "string":
      return Buffer.byteLength(JSON.stringify(value));
  }
  if (isLosslessNumber(value)) return value.toString().length;
  if (Array.isArray(value)) {
    let size = 2 + Math.max(0, value.length - 1);
    for (const item of value) size += jsonSize(item);
    return size;
  }
  const entries = Object.entries(value);
  let size = 2 + Math.max(0, entries.length - 1);
  for (const [key, item] of entries) size += Buffer.byteLength(JSON.stringify(key)) + 1 + jsonSize(item);
  return size;
}
