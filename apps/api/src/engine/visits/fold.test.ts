import { decodeDefinition } from "@baton/model";
import { describe, expect, it } from "vitest";
import { Refusal } from "../../refusal.js";
import { type Current, type JournalRow, resetPoint } from "./fold.js";

const FLAG = "--limit-visit-record-bytes";
const decoded = decodeDefinition({
  name: "p",
  tasks: [
    { id: "a", output: 1 },
    { id: "b", output: 2 },
    { id: "c", switch: [{ case: "outputs.b > 5", goto: "$d" }, { goto: "end" }] },
    { id: "d", output: 4, switch: [{ goto: "end" }] },
  ],
});
if (!decoded.ok) throw new Error("fixture does not decode");
const definition = decoded.definition;

const enter = (taskEpoch: number, task: string, fromEpoch: number, fromTask: string, output?: unknown): JournalRow => ({
  taskEpoch,
  task,
  kind: "enter",
  fromEpoch,
  fromTask,
  output: output === undefined ? null : JSON.stringify(output),
  children: null,
  error: null,
  snapshot: null,
  whole: true,
});
const current = (task: string, taskEpoch: number, outputs: Record<string, unknown> = {}): Current => ({
  id: "i-1",
  task,
  taskEpoch,
  outputs: outputs as Current["outputs"],
  children: {},
});
const refusal = (run: () => unknown): Refusal => {
  try {
    run();
  } catch (error) {
    if (error instanceof Refusal) return error;
    throw error;
  }
  throw new Error("expected a refusal");
};

describe("resetPoint", () => {
  // a (1) → b (2) → c (3), c failed; a retry made visit 4 of c.
  const rows = [enter(2, "b", 1, "a", 1), enter(3, "c", 2, "b", 2), { ...enter(4, "c", 3, "c"), kind: "retry" }];

  it("rebuilds the state of a task's first entry from the rows before it", () => {
    expect(resetPoint(rows, current("c", 4), definition, "c", FLAG)).toMatchObject({
      epoch: 3,
      entered: true,
      state: { outputs: { a: 1, b: 2 }, children: {} },
      childrenFrom: 3,
      rerun: [
        { task: "c", epoch: 3 },
        { task: "c", epoch: 4 },
      ],
    });
    expect(resetPoint(rows, current("c", 4), definition, "a", FLAG).state).toEqual({ outputs: {}, children: {} });
  });

  it("takes the state a leading visit left for a task never entered", () => {
    const point = resetPoint(rows, current("c", 4, { a: 1, b: 2 }), definition, "d", FLAG);
    expect(point).toMatchObject({ epoch: 4, entered: false, childrenFrom: 5, rerun: [] });
    expect(point.state.outputs, "the current visit, never left: its state as it stands").toEqual({ a: 1, b: 2 });
  });

  it("refuses a task no entered task leads to, a gap in the journal and a record not kept", () => {
    // An instance that started on d under an older version: nothing it entered leads back to a.
    expect(refusal(() => resetPoint([], current("d", 1), definition, "a", FLAG)).message).toContain(
      'never entered task "a", and no task it entered leads there',
    );
    const gap = refusal(() => resetPoint(rows.slice(1), current("c", 4), definition, "c", FLAG));
    expect(gap.message).toContain("has no record of its task visit 2");
    const big = refusal(() =>
      resetPoint(
        [{ ...rows[0]!, whole: false, output: null }, ...rows.slice(1)],
        current("c", 4),
        definition,
        "c",
        FLAG,
      ),
    );
    expect(big.message).toContain(`was larger than ${FLAG}`);
  });

  it("starts from a reset's snapshot, not from the fresh state", () => {
    const reset: JournalRow = {
      ...enter(5, "b", 2, "a"),
      kind: "reset",
      fromTask: null,
      snapshot: JSON.stringify({ outputs: { a: 9 }, _children: {} }),
    };
    const after = [...rows, reset, enter(6, "c", 5, "b", 3)];
    const point = resetPoint(after, current("c", 6), definition, "c", FLAG);
    expect(point.epoch, "the first entry of c is still visit 3").toBe(3);
    // Rebuilding visit 6 goes back to the snapshot of visit 5, whatever came before it.
    const later = resetPoint(after, current("c", 6, { a: 9, b: 3 }), definition, "d", FLAG);
    expect(later.state.outputs).toEqual({ a: 9, b: 3 });
  });
});
