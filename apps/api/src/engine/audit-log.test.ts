import { parseJson } from "@baton/expr";
import { freshPgliteDir } from "@baton/testkit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createClock } from "../clock.js";
import { type Database, openDatabase } from "../storage/db.js";
import { logs } from "../storage/schema/index.js";
import { appendLog, appendLogs, boundedDataText, levelsFrom, MAX_DATA_BYTES } from "./audit-log.js";

describe("boundedDataText", () => {
  it("cuts long strings and replaces an oversized object by a note of its size", () => {
    const cut = parseJson(boundedDataText({ body: "y".repeat(2000), code: "http.500" })) as Record<string, string>;
    expect(cut.code).toBe("http.500");
    expect(cut.body!.length).toBeLessThan(400);
    const many = Object.fromEntries(Array.from({ length: 500 }, (_, i) => [`k${i}`, "v".repeat(50)]));
    const note = parseJson(boundedDataText(many)) as Record<string, unknown>;
    expect(note.truncated).toBe(true);
    expect(Buffer.byteLength(boundedDataText(many))).toBeLessThanOrEqual(MAX_DATA_BYTES);
  });
});

describe("levelsFrom", () => {
  it("returns the level and every level above it", () => {
    expect(levelsFrom("debug")).toEqual(["debug", "info", "warn", "error"]);
    expect(levelsFrom("warn")).toEqual(["warn", "error"]);
    expect(levelsFrom("error")).toEqual(["error"]);
  });
});

describe("appendLogs", () => {
  let database: Database;
  beforeAll(async () => {
    database = await openDatabase({ dataDir: await freshPgliteDir() });
  });
  afterAll(async () => {
    await database?.close();
  });

  it("writes every entry with the service clock's time and ids increasing in array order", async () => {
    const clock = createClock(() => 1_000);
    clock.advance(500);
    await database.db.transaction(async (tx) => {
      await appendLogs(tx, clock, [
        { instanceId: "i1", rootId: "r", level: "info", event: "task.started", message: "a", task: "t1" },
        {
          instanceId: "i1",
          rootId: "r",
          level: "warn",
          event: "task.failed",
          message: "b",
          task: "t1",
          data: { code: "http.500" },
        },
      ]);
      await appendLog(tx, clock, {
        instanceId: "i1",
        rootId: "r",
        level: "info",
        event: "instance.paused",
        message: "c",
        actor: "token:x",
      });
    });
    const rows = await database.db.select().from(logs).orderBy(logs.id);
    expect(rows.map((r) => r.message)).toEqual(["a", "b", "c"]);
    expect(rows.every((r) => r.createdAt === 1_500)).toBe(true);
    expect(rows[1]!.data).toBe('{"code":"http.500"}');
    expect(rows[0]!.data).toBeNull();
    expect(rows[2]!.actor).toBe("token:x");
  });
});
