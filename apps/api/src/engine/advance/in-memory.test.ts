import { decodeDefinition, formatProblems } from "@baton/model";
import { describe, expect, it } from "vitest";
import { advance } from "./advance.js";
import type { AdvanceEnvironment, AdvanceInput } from "./advance-types.js";
import { compileDefinition } from "./compiled-definition.js";
import { advanceInMemory, type InMemoryBasis, inMemoryEnvironment, NeedsIo } from "./in-memory.js";

const inputSchema = { type: "object", properties: { n: { type: "integer" } } };

function compiled(raw: object) {
  const decoded = decodeDefinition({ input_schema: inputSchema, ...raw });
  if (!decoded.ok) throw new Error(formatProblems(decoded.problems));
  return compileDefinition(decoded.definition, 1);
}

function input(task: string, extra: Partial<AdvanceInput> = {}): AdvanceInput {
  return {
    ...{ id: "i-1", process: "p", version: 1, task, taskEpoch: 1, retryCount: 0 },
    state: { input: { n: 2 }, outputs: {}, _children: {} },
    reclaimed: false,
    previousOwner: null,
    ...extra,
  };
}

const basis: InMemoryBasis = { worker: "w-1", now: () => 5_000, random: () => 0.5, config: () => ({}) };
// Catches every code: a NeedsIo routed through on_error would show up as a goto to "caught".
const catchAll = { on_error: [{ goto: "$caught" }] };
const caught = { id: "caught", output: "caught" };

describe("advanceInMemory", () => {
  it("returns exactly what advance() returns with a full environment when no I/O is reached", async () => {
    const def = compiled({
      name: "p",
      tasks: [
        { id: "a", output: { doubled: "$: input.n * 2" } },
        { id: "b", switch: [{ case: "outputs.a.doubled > 3", goto: "$c" }, { goto: "end" }] },
        { id: "c", action: { type: "delay", for: "1m" } },
      ],
    });
    const full: AdvanceEnvironment = { ...basis, fetch: () => Promise.reject(new Error("no fetch here")) };
    const expected = await advance(def, input("a"), full);
    const got = await advanceInMemory(def, input("a"), basis);
    expect(got).toEqual(expected);
    expect(got).toMatchObject({ status: "running", task: "c", taskEpoch: 3, wakeAt: 65_000 });
  });

  it("completes and parks purely: routing to the end, and arming a delay", async () => {
    const def = compiled({ name: "p", tasks: [{ id: "c", action: { type: "delay", for: "1m" } }], output: "$: 7" });
    const parked = await advanceInMemory(def, input("c"), basis);
    expect(parked).toMatchObject({ status: "running", wakeAt: 65_000, phase: null });
    const done = await advanceInMemory(def, input("c", { state: { ...parked!.state } }), {
      ...basis,
      now: () => 70_000,
    });
    expect(done).toMatchObject({ status: "completed", output: 7 });
  });

  it("stops with nothing at a fetch, even under an on_error that catches every code", async () => {
    const def = compiled({
      name: "p",
      tasks: [{ id: "f", action: { type: "fetch", url: "http://up.test/x" }, ...catchAll }, caught],
    });
    expect(await advanceInMemory(def, input("f"), basis)).toBeUndefined();
  });

  it("stops with nothing at a child task, even under a catch-all on_error", async () => {
    const def = compiled({
      name: "p",
      tasks: [{ id: "k", action: { type: "child", name: "leaf" }, ...catchAll }, caught],
    });
    expect(await advanceInMemory(def, input("k"), basis)).toBeUndefined();
  });

  it("arms an external task only when the caller answers the signal buffer; otherwise stops", async () => {
    const def = compiled({ name: "p", tasks: [{ id: "x", action: { type: "external", input: { n: "$: input.n" } } }] });
    expect(await advanceInMemory(def, input("x"), basis)).toBeUndefined();
    const parked = await advanceInMemory(def, input("x"), { ...basis, peekSignal: async () => undefined });
    expect(parked).toMatchObject({
      status: "running",
      phase: "external",
      externalWait: { task: "x", taskEpoch: 1, input: { n: 2 }, since: 5_000, deadline: null },
    });
  });

  it("the environment's hooks throw NeedsIo naming what was reached", async () => {
    const env = inMemoryEnvironment(basis);
    await expect(env.fetch(undefined as never, {} as never, 1)).rejects.toMatchObject({ io: "fetch" });
    await expect(env.peekSignal!("x")).rejects.toBeInstanceOf(NeedsIo);
    expect(() => env.children).toThrow(NeedsIo);
  });
});
