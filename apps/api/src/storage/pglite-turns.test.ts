import { sql } from "drizzle-orm";
import { freshPgliteDir } from "@baton/testkit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Database, openDatabase } from "./db.js";

// PGlite runs statements on this thread; queued ones must not run as one turn of the event
// loop, or no request is answered until the whole queue is done (db.ts takingTurns). The
// embedded database only: this suite opens its own in memory, whatever DATABASE_URL says.

let database: Database;

beforeAll(async () => {
  database = await openDatabase({ dataDir: await freshPgliteDir() });
});
afterAll(async () => {
  await database?.close();
});

describe("statements queued on the embedded database", () => {
  it("let the event loop take a turn between them", async () => {
    const done: number[] = [];
    const queued = Array.from({ length: 5 }, (_, i) =>
      database.db.execute(sql`SELECT ${i}::int AS n`).then(() => done.push(i)),
    );
    // A callback for the next turn, asked for once the first statement is done: it must run
    // while the queue is still being worked through, as a request's I/O callback would.
    let seenAtTurn = -1;
    await queued[0];
    setImmediate(() => {
      seenAtTurn = done.length;
    });
    await Promise.all(queued);
    expect(done).toEqual([0, 1, 2, 3, 4]);
    expect(seenAtTurn, "statements done when the next turn of the event loop came").toBeGreaterThan(0);
    expect(seenAtTurn, "the turn came before the queue was worked through").toBeLessThan(5);
  });
});
