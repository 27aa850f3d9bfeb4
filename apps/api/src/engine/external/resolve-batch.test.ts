// Resolve-batch (docs/api.md "Extensions"): each item answered as a single resolve would answer
// it, the good ones landing together in one statement, fenced exactly as resolve is.
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { askOnce } from "../../../test/support/definitions.js";
import { type Harness, heldWrite, openHarness } from "../../../test/support/engine-harness.js";
import { rowsOf } from "../../storage/db.js";
import { claimFacts } from "./claim-facts.js";
import { claimExternalTasks, tokenHash } from "./claims.js";
import { type BatchOutcome, resolveExternalTasks } from "./outcomes.js";

let h: Harness;

beforeAll(async () => {
  h = await openHarness();
  await h.deploy(askOnce("batch_ask", { on_error: [{ code: "no", goto: "end" }] }));
});
afterAll(async () => {
  await h?.close();
});

async function parked(count: number): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < count; i++) ids.push(await h.start("batch_ask"));
  while ((await h.tick()) > 0);
  return ids;
}

/** Claims every armed task of `ids`, one token per instance. */
async function claimAll(ids: string[], claimMs = 30_000): Promise<Map<string, string>> {
  const items = await claimExternalTasks(h.db, h.clock, {
    workerId: "w",
    limit: 100,
    claimMs,
    process: "batch_ask",
  });
  const byInstance = new Map<string, string>();
  const tokens = await Promise.all(
    items.map(async (item) => {
      const [row] = rowsOf<{ instance_id: string }>(
        await h.db.execute(sql`SELECT instance_id FROM external_claims WHERE token_hash = ${tokenHash(item.token)}`),
      );
      return [row.instance_id, item.token] as const;
    }),
  );
  for (const [id, token] of tokens) if (ids.includes(id)) byInstance.set(id, token);
  expect(byInstance.size, "every instance was claimed").toBe(ids.length);
  return byInstance;
}

const summary = (answers: BatchOutcome[]) =>
  answers.map((a) =>
    a.resolved ? "resolved" : `${a.refusal.kind}${a.refusal.fields ? ` ${a.refusal.fields[0].path}` : ""}`,
  );

async function resolvedLines(id: string) {
  return (await h.logs(id)).filter((l) => l.event === "external.resolved");
}

describe("resolve-batch (in-process)", () => {
  it("answers a mix of good, stale, unknown, invalid, repeated and lapsed tokens one by one, in order", async () => {
    const ids = await parked(7);
    const [good, viaRead, raised, stale, invalid, lapsedLater, cancelledOne] = ids;
    const tokens = await claimAll(ids);
    // A claim this process did not hand out (another replica's): its facts come from one read.
    claimFacts(h.db).delete(tokenHash(tokens.get(viaRead)!));
    expect(
      summary(
        await resolveExternalTasks(h.db, h.clock, [{ token: tokens.get(stale)!, outcome: { result: { n: 0 } } }], null),
      ),
    ).toEqual(["resolved"]);
    await h.db.execute(sql`UPDATE instances SET status = 'cancelled', phase = NULL WHERE id = ${cancelledOne}`);

    const answers = await resolveExternalTasks(
      h.db,
      h.clock,
      [
        { token: tokens.get(good)!, outcome: { result: { n: 1 } } },
        { token: tokens.get(viaRead)!, outcome: { result: { n: 2 } } },
        { token: tokens.get(raised)!, outcome: { error: { code: "no", message: "declined" } } },
        { token: tokens.get(stale)!, outcome: { result: { n: 9 } } },
        { token: "ext_never_issued_000000000000000000", outcome: { result: { n: 1 } } },
        { token: tokens.get(invalid)!, outcome: { result: { n: "three" } } },
        { token: tokens.get(good)!, outcome: { result: { n: 5 } } },
        { token: tokens.get(cancelledOne)!, outcome: { result: { n: 1 } } },
      ],
      "batcher",
    );
    expect(summary(answers)).toEqual([
      "resolved",
      "resolved",
      "resolved",
      "conflict",
      "not_found",
      "invalid result.n",
      "conflict",
      "conflict",
    ]);
    expect(answers.map((a) => a.token)[4], "answers keep the order and token of the request").toBe(
      "ext_never_issued_000000000000000000",
    );

    while ((await h.tick()) > 0);
    expect((await h.get(good)).output, "a repeated token resolved once, with the first outcome").toEqual({ n: 1 });
    expect((await h.get(viaRead)).output).toEqual({ n: 2 });
    expect((await h.get(raised)).status, "an error outcome is routed by on_error").toBe("completed");
    expect((await h.get(stale)).output, "the stale token changed nothing").toEqual({ n: 0 });
    for (const id of [good, viaRead, raised]) {
      const lines = await resolvedLines(id);
      expect(lines, "one external.resolved line per resolved item").toHaveLength(1);
      expect(lines[0].actor).toBe("batcher");
    }
    expect(await resolvedLines(invalid), "a refused item logs nothing").toEqual([]);
    expect((await h.get(invalid)).status, "the refused item keeps waiting").toBe("running");

    // The invalid item's claim is still live; a lapsed claim is refused as resolve refuses it.
    h.clock.advance(31_000);
    const late = await resolveExternalTasks(
      h.db,
      h.clock,
      [
        { token: tokens.get(invalid)!, outcome: { result: { n: 3 } } },
        { token: tokens.get(lapsedLater)!, outcome: { result: { n: 4 } } },
      ],
      null,
    );
    expect(summary(late), "both claims lapsed 30 s after they were made").toEqual(["conflict", "conflict"]);
    const again = await claimAll([invalid, lapsedLater]);
    expect(
      summary(
        await resolveExternalTasks(
          h.db,
          h.clock,
          [...again.values()].map((token) => ({ token, outcome: { result: { n: 3 } } })),
          null,
        ),
      ),
    ).toEqual(["resolved", "resolved"]);
    while ((await h.tick()) > 0);
    expect((await h.get(invalid)).output).toEqual({ n: 3 });
    expect((await h.get(lapsedLater)).output).toEqual({ n: 3 });
  });

  it("a batch that lands while a worker is raising the timeout wins; the stale advance is dropped", async () => {
    const [id] = await parked(1);
    const tokens = await claimAll([id], 120_000);
    h.clock.advance(61_000);
    // The order is fixed, not raced: the worker computes `id`'s timeout and its write is held
    // until the batch has landed.
    const worker = heldWrite(h, "worker-raising-timeout", id);
    const ticking = worker.engine.tick();
    await worker.computed;
    const answers = await resolveExternalTasks(
      h.db,
      h.clock,
      [
        { token: tokens.get(id)!, outcome: { result: { n: 7 } } },
        { token: "ext_never_issued_000000000000000001", outcome: { result: { n: 8 } } },
      ],
      null,
    );
    worker.release();
    expect(await ticking, "the timeout's write is fenced out by the batch").toBe(0);
    expect(summary(answers)).toEqual(["resolved", "not_found"]);
    while ((await h.tick()) > 0);
    const view = await h.get(id);
    expect(view.status, "the answer wins, never the timeout").toBe("completed");
    expect(view.output).toEqual({ n: 7 });
    expect((await h.logs(id)).filter((l) => l.event === "instance.failed")).toEqual([]);
  });

  it("after the timeout routed, a batch item for that visit is refused (409) and the others land", async () => {
    const [timedOut] = await parked(1);
    const tokens = await claimAll([timedOut], 120_000);
    h.clock.advance(61_000);
    while ((await h.tick()) > 0);
    expect((await h.get(timedOut)).errorCode).toBe("external.timeout");
    const [fresh] = await parked(1);
    const [freshToken] = (await claimAll([fresh])).values();
    const answers = await resolveExternalTasks(
      h.db,
      h.clock,
      [
        { token: tokens.get(timedOut)!, outcome: { result: { n: 1 } } },
        { token: freshToken, outcome: { result: { n: 2 } } },
      ],
      null,
    );
    expect(summary(answers)).toEqual(["conflict", "resolved"]);
    expect(answers[0].resolved === false && answers[0].refusal.message).toMatch(/is failed; it no longer waits/);
  });

  it("a paused instance takes its batch outcome and stays paused until resumed", async () => {
    const [id] = await parked(1);
    const tokens = await claimAll([id]);
    await h.db.execute(sql`UPDATE instances SET status = 'paused' WHERE id = ${id}`);
    expect(
      summary(
        await resolveExternalTasks(h.db, h.clock, [{ token: tokens.get(id)!, outcome: { result: { n: 6 } } }], null),
      ),
    ).toEqual(["resolved"]);
    while ((await h.tick()) > 0);
    expect((await h.get(id)).status).toBe("paused");
    await h.db.execute(sql`UPDATE instances SET status = 'running', wake_at = ${h.clock.now()} WHERE id = ${id}`);
    while ((await h.tick()) > 0);
    expect((await h.get(id)).output).toEqual({ n: 6 });
  });
});
