// One request to an inbound hook (docs/events.md "Receiving"): verify, then start or signal at
// most once per sender delivery id. A request that is not verified changes nothing and learns
// nothing: the caller answers 401 for `verified: false`, whatever the reason.
import type { HookReceipt } from "@baton/actions";
import { type Json, parseJson } from "@baton/expr";
import { validateValue } from "@baton/model";
import { sql } from "drizzle-orm";
import { invalid, notFound } from "../../refusal.js";
import { type Db, rowsOf } from "../../storage/db.js";
import { signalExternalTask } from "../external/signal.js";
import { resolveTarget } from "../schedules/fire-start.js";
import { type StartDeps, startInstance } from "../starts/start.js";
import { evaluateHookShape, type StoredHookSpec } from "./spec.js";
import { hookRow } from "./verbs.js";
import { verifyRequest } from "./verify.js";

export interface HookRequest {
  headers: Headers;
  query: Record<string, string>;
  body: string;
}

export type HookAnswer = { verified: false } | { verified: true; receipt: HookReceipt };

async function recorded(db: Db, hook: string, deliveryId: string): Promise<HookReceipt | undefined> {
  const [row] = rowsOf<{ outcome: string; instance_id: string | null }>(
    await db.execute(
      sql`SELECT outcome, instance_id FROM hook_deliveries WHERE hook = ${hook} AND delivery_id = ${deliveryId}`,
    ),
  );
  if (row === undefined) return undefined;
  const outcome = row.outcome === "started" ? "started" : "signalled";
  return { delivery_id: deliveryId, duplicate: true, outcome, instance_id: row.instance_id };
}

export async function receiveHook(deps: StartDeps, name: string, request: HookRequest): Promise<HookAnswer> {
  const { db, clock, config } = deps;
  const row = await hookRow(db, name);
  if (row === undefined) return { verified: false };
  const spec = parseJson(row.spec) as unknown as StoredHookSpec;
  const settings = {
    verifier: row.verifier,
    secret: row.secret,
    header: spec.header,
    idHeader: spec.id_header,
    toleranceMs: spec.tolerance_ms,
  };
  // Real time: the sender signed with its clock, not the service clock's /tick offset.
  const verdict = verifyRequest(settings, request.headers, request.body, Date.now());
  if (!verdict.ok) return { verified: false };

  let body: Json;
  try {
    body = request.body === "" ? null : parseJson(request.body);
  } catch (error) {
    throw invalid(`the request body is not JSON: ${(error as Error).message}`, [{ path: "body", message: "not JSON" }]);
  }
  if (spec.body_schema !== null) {
    const problems = validateValue(spec.body_schema as never, body);
    if (problems.length > 0)
      throw invalid(
        `the request body does not match the hook's body_schema: ${problems.map((p) => `${p.path || "body"}: ${p.message}`).join("; ")}`,
        problems.map((p) => ({ path: `body${p.path}`, message: p.message })),
      );
  }
  let deliveryId = verdict.deliveryId;
  if (deliveryId === null && row.verifier === "stripe") {
    const id =
      body !== null && typeof body === "object" && !Array.isArray(body) ? (body as { id?: Json }).id : undefined;
    if (typeof id === "string" && id !== "") deliveryId = id;
  }
  if (deliveryId === null || deliveryId.length > 256)
    throw invalid(
      `the request names no delivery id (${row.verifier === "stripe" ? "the event's id in the body" : `header ${spec.id_header}`}), at most 256 characters`,
      [{ path: "headers", message: "no delivery id" }],
    );
  const earlier = await recorded(db, name, deliveryId);
  if (earlier !== undefined) return { verified: true, receipt: earlier };

  const headers: Record<string, string> = {};
  request.headers.forEach((value, key) => {
    headers[key] = value;
  });
  const scope = { body, headers, query: request.query as Json };
  const now = clock.now();
  const actor = `hook:${name}`;
  if (spec.start !== null && spec.start !== undefined) {
    const start = spec.start;
    const target = await resolveTarget(db, db, {
      process: start.process,
      channel: start.channel ?? null,
      version: null,
    });
    if (!target.ok) throw invalid(`the hook cannot start its target: ${target.reason}`);
    const input = evaluateHookShape(start.input ?? {}, "start.input", scope, config.limits, now);
    const key =
      start.business_key === undefined
        ? undefined
        : evaluateHookShape(start.business_key, "start.business_key", scope, config.limits, now);
    if (key !== undefined && typeof key !== "string")
      throw invalid("the hook's start.business_key must build a string on this request", [
        { path: "start.business_key", message: "not a string" },
      ]);
    // The sender's delivery id is the start's Idempotency-Key: a retry racing the first
    // request starts nothing (docs/instances.md "Idempotent starts").
    const started = await startInstance(
      { process: start.process, version: target.version, input, ...(key === undefined ? {} : { key }) },
      actor,
      deps,
      deliveryId,
    );
    await db.execute(sql`
      INSERT INTO hook_deliveries (hook, delivery_id, outcome, instance_id, received_at)
      VALUES (${name}, ${deliveryId}, 'started', ${started.id}, ${now}) ON CONFLICT DO NOTHING`);
    return {
      verified: true,
      receipt: { delivery_id: deliveryId, duplicate: started.replayed, outcome: "started", instance_id: started.id },
    };
  }

  const signal = spec.signal!;
  // The delivery id is taken before the signal: a retry racing this request finds it and does nothing.
  const claimed = rowsOf(
    await db.execute(sql`
      INSERT INTO hook_deliveries (hook, delivery_id, outcome, instance_id, received_at)
      VALUES (${name}, ${deliveryId}, 'pending', NULL, ${now}) ON CONFLICT DO NOTHING RETURNING hook`),
  );
  if (claimed.length === 0) return { verified: true, receipt: (await recorded(db, name, deliveryId))! };
  try {
    const key = evaluateHookShape(signal.business_key, "signal.business_key", scope, config.limits, now);
    const result = evaluateHookShape(signal.result ?? "$: body", "signal.result", scope, config.limits, now);
    const [instance] = rowsOf<{ id: string }>(
      await db.execute(sql`
        SELECT id FROM instances WHERE key = ${String(key)} AND process = ${signal.process} AND parent_id IS NULL
        ORDER BY created_at DESC LIMIT 1`),
    );
    if (instance === undefined)
      throw notFound(`no instance of process "${signal.process}" has the business key "${String(key).slice(0, 200)}"`);
    const answer = await signalExternalTask(db, clock, instance.id, signal.task, { result }, actor, {
      onlyIfWaiting: true,
      maxBuffered: config.limits.bufferedSignals,
    });
    if (answer.delivered) deps.engine.wake();
    await db.execute(sql`
      UPDATE hook_deliveries SET outcome = 'signalled', instance_id = ${instance.id}
      WHERE hook = ${name} AND delivery_id = ${deliveryId}`);
    return {
      verified: true,
      receipt: { delivery_id: deliveryId, duplicate: false, outcome: "signalled", instance_id: instance.id },
    };
  } catch (error) {
    // Nothing was signalled: the sender's retry may try again.
    await db.execute(sql`DELETE FROM hook_deliveries WHERE hook = ${name} AND delivery_id = ${deliveryId}`);
    throw error;
  }
}
