import { describe, expect, it } from "vitest";
import { createLogger, isLogLevel, throttledLog, withFields } from "./index.js";

function capture(level?: Parameters<typeof createLogger>[0]) {
  const lines: string[] = [];
  return { lines, log: createLogger(level, (l) => lines.push(l)) };
}

describe("createLogger", () => {
  it("writes one JSON object per line with time, level, msg and the fields", () => {
    const { lines, log } = capture("debug");
    log.info("listening", { url: "http://127.0.0.1:1" });
    expect(lines).toHaveLength(1);
    expect(lines[0].endsWith("\n"), "one line per entry, so log shippers can split them").toBe(true);
    const entry = JSON.parse(lines[0]);
    expect(entry).toMatchObject({ level: "info", msg: "listening", url: "http://127.0.0.1:1" });
    expect(Number.isNaN(Date.parse(entry.time)), "time is an ISO timestamp").toBe(false);
  });

  it("drops entries below its level and keeps that level and above", () => {
    const { lines, log } = capture("warn");
    log.debug("d");
    log.info("i");
    log.warn("w");
    log.error("e");
    expect(lines.map((l) => JSON.parse(l).msg)).toEqual(["w", "e"]);
  });

  it("withFields puts its fields on every line, the line's own fields last", () => {
    const { lines, log } = capture("debug");
    const traced = withFields(log, { trace_id: "a".repeat(32), span_id: "b".repeat(16) });
    traced.warn("inside a span", { instance: "i1", span_id: "c".repeat(16) });
    log.info("outside any span");
    expect(JSON.parse(lines[0]!)).toMatchObject({ trace_id: "a".repeat(32), span_id: "c".repeat(16), instance: "i1" });
    expect(JSON.parse(lines[1]!)).not.toHaveProperty("trace_id");
  });

  it("defaults to info", () => {
    const { lines, log } = capture();
    log.debug("d");
    log.info("i");
    expect(lines.map((l) => JSON.parse(l).msg)).toEqual(["i"]);
  });

  it("knows the four level names and nothing else", () => {
    expect(["debug", "info", "warn", "error"].every(isLogLevel)).toBe(true);
    expect(isLogLevel("trace")).toBe(false);
    expect(isLogLevel("toString"), "not fooled by Object.prototype").toBe(false);
  });
});

describe("throttledLog", () => {
  it("writes one line per key per interval and says how many it held back", () => {
    const lines: [string, Record<string, unknown> | undefined][] = [];
    let t = 0;
    const log = throttledLog(
      (msg, fields) => lines.push([msg, fields]),
      1000,
      () => t,
    );
    for (let i = 0; i < 500; i++) log.log("a", "refused", { reason: "r" });
    log.log("b", "other");
    t = 1000;
    log.log("a", "refused", { reason: "r" });
    expect(lines).toEqual([
      ["refused", { reason: "r" }],
      ["other", undefined],
      ["refused", { reason: "r", suppressed: 499 }],
    ]);
  });

  it("remembers at most maxKeys keys", () => {
    const lines: string[] = [];
    const log = throttledLog(
      (msg) => lines.push(msg),
      1000,
      () => 0,
      2,
    );
    for (const key of ["a", "b", "c", "a"]) log.log(key, key);
    expect(lines, "a was forgotten when c came, so it is written again").toEqual(["a", "b", "c", "a"]);
  });
});
