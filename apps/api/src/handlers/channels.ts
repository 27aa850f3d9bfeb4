import { and, eq, inArray, type SQL, sql } from "drizzle-orm";
import { covers, requireInScope, scopeFilter } from "../auth/scope.js";
import type { Principal } from "../auth/principal.js";
import { sqlTextArray } from "../storage/sql-arrays.js";
import { childReferences } from "../definitions/child-references.js";
import { definitionExists, getDefinition, latestHead, pinsOf } from "../definitions/store.js";
import type { ActionHandlers } from "../http/action-handler.js";
import { invalid, notFound } from "../refusal.js";
import { type ListSpec, mapPage, paginate } from "../views/pagination.js";
import { iso } from "../format.js";
import { actorLabels, withActorLabel } from "../views/actor-labels.js";
import { type Db, inTransaction } from "../storage/db.js";
import { channels } from "../storage/schema/index.js";

type ChannelRow = typeof channels.$inferSelect;

const CHANNEL_NAME = /^[a-z0-9][a-z0-9_.-]{0,63}$/;

const channelList: ListSpec<ChannelRow> = {
  list: "channels",
  sorts: {
    name: { columns: [channels.name, channels.channel], values: (r) => [r.name, r.channel] },
    updated_at: {
      columns: [channels.updatedAt, channels.name, channels.channel],
      values: (r) => [r.updatedAt, r.name, r.channel],
    },
  },
  defaultSort: "name",
  defaultOrder: "asc",
};

function channelEntry(row: ChannelRow) {
  return {
    channel: row.channel,
    name: row.name,
    version: row.version,
    ...(row.actor ? { actor: row.actor } : {}),
    updated_at: iso(row.updatedAt),
  };
}

function checkChannelName(field: string, value: string): void {
  if (!CHANNEL_NAME.test(value)) {
    throw invalid(
      `${field} "${value}" is not a valid channel name; expected lower-case letters, digits, "_", "." or "-" (at most 64, starting with a letter or digit)`,
      [{ path: `body.${field}`, message: "must match ^[a-z0-9][a-z0-9_.-]{0,63}$" }],
    );
  }
}

/** The channel's pointers the caller's scopes cover (docs/auth.md "Scopes"): with none, it points at no process. */
async function channelRows(db: Db, channel: string, principal: Principal): Promise<ChannelRow[]> {
  const rows = (await db.select().from(channels).where(eq(channels.channel, channel))).filter((row) =>
    covers(principal.scopes, row.name),
  );
  if (rows.length === 0) throw notFound(`channel "${channel}" points at no process`);
  return rows;
}

/** `root` and every process it references as a child, transitively, at the versions on `rows`. */
async function subtree(db: Db, rows: ChannelRow[], root: string): Promise<Set<string>> {
  const byName = new Map(rows.map((r) => [r.name, r]));
  if (!byName.has(root)) throw notFound(`process "${root}" is not on the channel`);
  const seen = new Set<string>();
  const queue = [root];
  while (queue.length > 0) {
    const name = queue.pop()!;
    if (seen.has(name)) continue;
    seen.add(name);
    const row = byName.get(name);
    if (!row) continue;
    const def = await getDefinition(db, name, row.version);
    for (const ref of def ? childReferences(def.definition) : []) queue.push(ref.child);
  }
  return seen;
}

export const channelHandlers = {
  listChannels: async ({ query, principal }, { db, config }) => {
    const filters: SQL[] = [];
    const only = await scopeFilter(db, principal);
    if (only !== null)
      filters.push(only.length === 0 ? sql`false` : sql`${channels.name} = ANY(${sqlTextArray(only)})`);
    if (query.name !== undefined) filters.push(eq(channels.name, query.name));
    const page = await paginate(db, channels, and(...filters), channelList, query, config.limits.pageCount);
    const label = await actorLabels(
      db,
      page.items.map((r) => r.actor),
    );
    return { body: mapPage(page, (r) => withActorLabel(channelEntry(r), label)) };
  },

  setChannel: async ({ body, principal }, { db, clock }) => {
    const { name, channel, version } = body;
    checkChannelName("channel", channel);
    // Whether it is stored, not its text: a definition may be as large as 4 MiB.
    if (!(await definitionExists(db, name, version))) {
      const registered = (await latestHead(db, name)) !== undefined;
      throw notFound(
        registered ? `process "${name}" has no version ${version}` : `process "${name}" is not registered`,
      );
    }
    const now = clock.now();
    await db
      .insert(channels)
      .values({ name, channel, version, actor: principal.actor, updatedAt: now })
      .onConflictDoUpdate({
        target: [channels.channel, channels.name],
        set: { version, actor: principal.actor, updatedAt: now },
      });
    return { body: { channel, name, version } };
  },

  deleteChannel: async ({ body }, { db }) => {
    const { name, channel } = body;
    const deleted = await db
      .delete(channels)
      .where(and(eq(channels.channel, channel), eq(channels.name, name)))
      .returning({ name: channels.name });
    return { body: { deleted: deleted.length > 0 } };
  },

  promoteChannel: async ({ body, principal }, { db, clock }) => {
    const { from, to, process } = body;
    checkChannelName("from", from);
    checkChannelName("to", to);
    if (from === to)
      throw invalid(`"from" and "to" are both "${from}"; promote copies pointers between two different channels`);
    const now = clock.now();
    if (process !== undefined) requireInScope(principal, process, "body.process");
    const promoted = await inTransaction(db, async (tx) => {
      const rows = await channelRows(tx, from, principal);
      const scope = process ? await subtree(tx, rows, process) : undefined;
      // docs/auth.md "Scopes": a subtree reaching a process outside the scopes is refused as a
      // whole, naming that child (a name the caller's own definitions reference).
      for (const name of scope ?? [])
        requireInScope(principal, name, `a child in the subtree of body.process "${process}"`);
      const chosen = rows.filter((r) => !scope || scope.has(r.name)).sort((a, b) => a.name.localeCompare(b.name));
      const current = new Map(
        (
          await tx
            .select()
            .from(channels)
            .where(
              and(eq(channels.channel, to), inArray(channels.name, chosen.length ? chosen.map((r) => r.name) : [""])),
            )
        ).map((r) => [r.name, r.version] as const),
      );
      const out: Array<{ name: string; version: number; previous: number }> = [];
      for (const row of chosen) {
        await tx
          .insert(channels)
          .values({ name: row.name, channel: to, version: row.version, actor: principal.actor, updatedAt: now })
          .onConflictDoUpdate({
            target: [channels.channel, channels.name],
            set: { version: row.version, actor: principal.actor, updatedAt: now },
          });
        out.push({ name: row.name, version: row.version, previous: current.get(row.name) ?? 0 });
      }
      return out;
    });
    return { body: { from, to, promoted } };
  },

  channelStatus: async ({ body, principal }, { db }) => {
    const { channel } = body;
    const rows = await channelRows(db, channel, principal);
    const onChannel = new Map(rows.map((r) => [r.name, r.version] as const));
    const items: Array<{
      name: string;
      version: number;
      task: string;
      child: string;
      pinned_version: number;
      channel_version: number | null;
    }> = [];
    for (const row of rows.sort((a, b) => a.name.localeCompare(b.name))) {
      const pins = await pinsOf(db, row.name, row.version);
      for (const pin of pins) {
        // Another scope's channel pointer is not the caller's to see (docs/auth.md "Scopes").
        if (!covers(principal.scopes, pin.child)) continue;
        const current = onChannel.get(pin.child) ?? null;
        if (current !== pin.childVersion) {
          items.push({
            name: row.name,
            version: row.version,
            task: pin.task,
            child: pin.child,
            pinned_version: pin.childVersion,
            channel_version: current,
          });
        }
      }
    }
    return { body: { items } };
  },
} satisfies ActionHandlers;
