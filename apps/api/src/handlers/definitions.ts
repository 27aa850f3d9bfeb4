import type { StoredDefinition, ValidateResult } from "@baton/actions";
import { stringifyJson } from "@baton/expr";
import { readerOf } from "../services.js";
import { and, eq, gte, lt, type SQL, sql } from "drizzle-orm";
import { covers, requireInScope, scopeFilter } from "../auth/scope.js";
import { sqlTextArray } from "../storage/sql-arrays.js";
import { type CheckedDefinition, checkDefinitionRequest, type UnparsedBody } from "../definitions/decode-request.js";
import { definitionLimitsOf } from "../limits.js";
import { keepStoredText, latestHead, lockProcessName, requireDefinitionRow } from "../definitions/store.js";
import type { ActionHandlers } from "../http/action-handler.js";
import { type ListSpec, mapPage, paginate } from "../views/pagination.js";
import { type Db, inTransaction } from "../storage/db.js";
import { channels, definitionPins, definitions } from "../storage/schema/index.js";
import { iso } from "../format.js";
import { refuseSettingCollisions } from "../setting-grants.js";
import { actorLabels, withActorLabel } from "../views/actor-labels.js";

type DefinitionRow = typeof definitions.$inferSelect;

const definitionList: ListSpec<DefinitionRow> = {
  list: "definitions",
  sorts: {
    created_at: {
      columns: [definitions.createdAt, definitions.name, definitions.version],
      values: (r) => [r.createdAt, r.name, r.version],
    },
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

/**
 * Stores a checked definition as a new version unless its canonical form equals the latest
 * version's. Must run inside a transaction holding lockProcessName(def.name).
 */
async function saveDefinition(
  tx: Db,
  checked: CheckedDefinition,
  actor: string | null,
  now: number,
): Promise<{ version: number; saved: boolean }> {
  const { name, hash } = checked;
  const latest = await latestHead(tx, name);
  if (latest && latest.hash === hash) return { version: latest.version, saved: false };
  const version = (latest?.version ?? 0) + 1;
  await tx.insert(definitions).values({
    name,
    version,
    definition: checked.canonical,
    hash,
    raises: JSON.stringify(checked.raises),
    actor,
    createdAt: now,
  });
  return { version, saved: true };
}

export const definitionHandlers = {
  putDefinition: async ({ body, principal }, { db, clock, config, checker }) => {
    const visible = (process: string) => covers(principal.scopes, process);
    const request = await checkDefinitionRequest(
      checker,
      db,
      "putDefinition",
      body as unknown as UnparsedBody,
      definitionLimitsOf(config.limits),
      visible,
    );
    const checked = request.definitions[0]!;
    const name = checked.name;
    requireInScope(principal, name, "body.name");
    await refuseSettingCollisions(db, [{ name, settings: checked.settings, path: "body" }], visible);
    const result = await inTransaction(db, async (tx) => {
      await lockProcessName(tx, name);
      return saveDefinition(tx, checked, principal.actor, clock.now());
    });
    if (result.saved) keepStoredText(db, name, result.version, checked.canonical);
    return { body: { name, saved: result.saved, version: result.version } };
  },

  listDefinitions: async ({ query, principal }, services) => {
    const db = readerOf(services);
    const { config } = services;
    const filters: SQL[] = [];
    const only = await scopeFilter(db, principal);
    if (only !== null)
      filters.push(only.length === 0 ? sql`false` : sql`${definitions.name} = ANY(${sqlTextArray(only)})`);
    if (query.created_after !== undefined) filters.push(gte(definitions.createdAt, query.created_after));
    if (query.created_before !== undefined) filters.push(lt(definitions.createdAt, query.created_before));
    if (query.name !== undefined) filters.push(eq(definitions.name, query.name));
    const page = await paginate(db, definitions, and(...filters), definitionList, query, config.limits.pageCount);
    const label = await actorLabels(
      db,
      page.items.map((r) => r.actor),
    );
    return { body: mapPage(page, (r) => withActorLabel(definitionSummary(r), label)) };
  },

  getDefinition: async ({ params }, services) => {
    const db = readerOf(services);
    const row = await requireDefinitionRow(db, params.name!, Number(params.version));
    const label = await actorLabels(db, [row.actor]);
    // The stored canonical text goes out as it is: parsing and writing out the largest
    // definition allowed would hold the event loop for far longer than a request may
    // (docs/limits.md#the-checker-thread). Only the short fields around it are written here.
    const head = stringifyJson(withActorLabel(definitionSummary(row), label));
    const text = `${head.slice(0, -1)},"definition":${row.definition}}`;
    return { contentType: "application/json", body: text as unknown as StoredDefinition };
  },

  putDefinitionBatch: async ({ body, principal }, { db, clock, config, checker }) => {
    const visible = (process: string) => covers(principal.scopes, process);
    const request = await checkDefinitionRequest(
      checker,
      db,
      "putDefinitionBatch",
      body as unknown as UnparsedBody,
      definitionLimitsOf(config.limits),
      visible,
    );
    const checked = request.definitions;
    const channel = request.channel!;
    // docs/auth.md "Scopes": the whole batch is refused when any part is out of scope, naming it.
    for (const [i, def] of checked.entries()) requireInScope(principal, def.name, `body.definitions[${i}].name`);
    await refuseSettingCollisions(
      db,
      checked.map((def, i) => ({ name: def.name, settings: def.settings, path: `body.definitions[${i}]` })),
      visible,
    );
    const now = clock.now();
    const results = await inTransaction(db, async (tx) => {
      // Lock in name order so two batches over the same processes cannot deadlock.
      for (const name of [...new Set(checked.map((d) => d.name))].sort()) await lockProcessName(tx, name);
      const out: Array<{ name: string; version: number; saved: boolean; previous: number }> = [];
      for (const def of checked) {
        const saved = await saveDefinition(tx, def, principal.actor, now);
        const [current] = await tx
          .select({ version: channels.version })
          .from(channels)
          .where(and(eq(channels.channel, channel), eq(channels.name, def.name)));
        await tx
          .insert(channels)
          .values({ name: def.name, channel, version: saved.version, actor: principal.actor, updatedAt: now })
          .onConflictDoUpdate({
            target: [channels.channel, channels.name],
            set: { version: saved.version, actor: principal.actor, updatedAt: now },
          });
        out.push({ name: def.name, version: saved.version, saved: saved.saved, previous: current?.version ?? 0 });
      }
      // Child references without a version are pinned to what the channel points at now.
      const onChannel = new Map(
        (await tx.select().from(channels).where(eq(channels.channel, channel))).map(
          (r) => [r.name, r.version] as const,
        ),
      );
      for (const [i, def] of checked.entries()) {
        for (const ref of def.children) {
          if (ref.version) continue;
          const childVersion = onChannel.get(ref.child) ?? (await latestHead(tx, ref.child))?.version;
          if (childVersion === undefined) continue;
          await tx
            .insert(definitionPins)
            .values({ name: def.name, version: out[i]!.version, task: ref.task, child: ref.child, childVersion })
            .onConflictDoNothing();
        }
      }
      return out;
    });
    for (const [i, saved] of results.entries())
      if (saved.saved) keepStoredText(db, saved.name, saved.version, checked[i]!.canonical);
    return { body: results };
  },

  validateDefinitions: async ({ body, principal }, { db, config, checker }) => {
    const request = await checkDefinitionRequest(
      checker,
      db,
      "validateDefinitions",
      body as unknown as UnparsedBody,
      definitionLimitsOf(config.limits),
      (process) => covers(principal.scopes, process),
    );
    const checked = request.definitions;
    for (const [i, def] of checked.entries()) requireInScope(principal, def.name, `body[${i}].name`);
    // The checker thread wrote the answer: the event loop only joins it (docs/limits.md#the-checker-thread).
    const text = `[${checked.map((c) => c.validated!).join(",")}]`;
    return { contentType: "application/json", body: text as unknown as ValidateResult[] };
  },
} satisfies ActionHandlers;
