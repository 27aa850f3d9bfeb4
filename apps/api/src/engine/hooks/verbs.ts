// The hook resource's verbs and views (docs/events.md "Hooks"): create or replace, delete, and
// how a hook reads — never with its secret.
import type { Hook, HookBody, HookRequestRecord } from "@baton/actions";
import { parseJson, stringifyJson } from "@baton/expr";
import { sql } from "drizzle-orm";
import type { Clock } from "../../clock.js";
import type { ServerConfig } from "../../config.js";
import { iso } from "../../format.js";
import { flagOf } from "../../limits.js";
import { conflict, notFound } from "../../refusal.js";
import { type Db, inTransaction, rowsOf } from "../../storage/db.js";
import { specOfHookBody, type StoredHookSpec } from "./spec.js";
import { sharedValueHash } from "./verify.js";

/** Requests a hook's single view lists. */
export const LAST_REQUESTS_SHOWN = 20;

export interface HookRow {
  name: string;
  verifier: string;
  secret: string;
  spec: string;
  actor: string | null;
  created_at: number | string;
  updated_at: number | string;
}

/** A hook's view: its spec, never its secret. */
export function hookView(row: Omit<HookRow, "secret">): Hook {
  const spec = parseJson(row.spec) as unknown as StoredHookSpec;
  return {
    name: row.name,
    path: `/api/hooks/${row.name}`,
    verifier: row.verifier as Hook["verifier"],
    header: spec.header,
    id_header: spec.id_header,
    tolerance_ms: spec.tolerance_ms,
    body_schema: (spec.body_schema ?? null) as Hook["body_schema"],
    start: spec.start,
    signal: spec.signal,
    actor: row.actor,
    created_at: iso(Number(row.created_at)),
    updated_at: iso(Number(row.updated_at)),
  };
}

/** The hook row (with its secret: for the verifier only), or undefined. */
export async function hookRow(db: Db, name: string): Promise<HookRow | undefined> {
  const [row] = rowsOf<HookRow>(await db.execute(sql`SELECT * FROM hooks WHERE name = ${name}`));
  return row;
}

export async function readHook(db: Db, name: string): Promise<Hook> {
  const row = await hookRow(db, name);
  if (row === undefined) throw notFound(`no hook is named "${name}"`);
  const requests = rowsOf<{ delivery_id: string; received_at: string; outcome: string; instance_id: string | null }>(
    await db.execute(sql`
      SELECT delivery_id, received_at, outcome, instance_id FROM hook_deliveries WHERE hook = ${name}
      ORDER BY received_at DESC LIMIT ${LAST_REQUESTS_SHOWN}`),
  );
  const last: HookRequestRecord[] = requests.map((r) => ({
    delivery_id: r.delivery_id,
    received_at: iso(Number(r.received_at)),
    outcome: (r.outcome === "pending" ? "signalled" : r.outcome) as HookRequestRecord["outcome"],
    instance_id: r.instance_id,
    detail: null,
  }));
  return { ...hookView(row), last_requests: last };
}

export async function putHook(
  deps: { db: Db; clock: Clock; config: ServerConfig },
  name: string,
  body: HookBody,
  actor: string | null,
): Promise<{ created: boolean }> {
  const { db, clock, config } = deps;
  const spec = await specOfHookBody(db, body);
  const secret = body.verifier === "header" ? sharedValueHash(body.secret) : body.secret;
  const now = clock.now();
  return inTransaction(db, async (tx) => {
    await tx.execute(sql`SELECT pg_advisory_xact_lock(hashtext('baton.hooks'))`);
    const [existing] = rowsOf<{ name: string }>(
      await tx.execute(sql`SELECT name FROM hooks WHERE name = ${name} FOR UPDATE`),
    );
    if (existing === undefined) {
      const [count] = rowsOf<{ n: number }>(await tx.execute(sql`SELECT count(*)::int AS n FROM hooks`));
      if (Number(count?.n ?? 0) >= config.limits.hooks)
        throw conflict(
          `there are already ${count?.n} hooks, the most allowed (${flagOf("hooks")}, docs/limits.md); delete one first`,
        );
    }
    await tx.execute(sql`
      INSERT INTO hooks (name, verifier, secret, spec, actor, created_at, updated_at)
      VALUES (${name}, ${body.verifier}, ${secret}, ${stringifyJson(spec as never)}, ${actor}, ${now}, ${now})
      ON CONFLICT (name) DO UPDATE SET verifier = excluded.verifier, secret = excluded.secret, spec = excluded.spec,
        actor = excluded.actor, updated_at = excluded.updated_at`);
    return { created: existing === undefined };
  });
}

export async function deleteHook(db: Db, name: string): Promise<boolean> {
  return inTransaction(db, async (tx) => {
    const gone = rowsOf(await tx.execute(sql`DELETE FROM hooks WHERE name = ${name} RETURNING name`));
    await tx.execute(sql`DELETE FROM hook_deliveries WHERE hook = ${name}`);
    return gone.length > 0;
  });
}
