import { decodeDefinition, formatProblems } from "@baton/model";
import { describe, expect, it } from "vitest";
import { compileDefinition } from "../compiled-definition.js";
import { CHILDREN_PER_TURN, type ChildEnvironment, runChildren } from "./child.js";

function compiled(raw: unknown) {
  const decoded = decodeDefinition(raw);
  if (!decoded.ok) throw new Error(formatProblems(decoded.problems));
  return compileDefinition(decoded.definition, 1);
}

describe("a child_list of thousands of children", () => {
  it("is planned over several turns of the event loop, not one", async () => {
    const leaf = compiled({ name: "leaf", tasks: [{ id: "done" }] });
    const fan = compiled({
      name: "fan",
      input_schema: { type: "object", properties: { items: { type: "array", items: { type: "object" } } } },
      tasks: [{ id: "each", action: { type: "child_list", name: "leaf", over: "$: input.items" } }],
    });
    const count = CHILDREN_PER_TURN * 3;
    // The turn each child's id was made in: a counter moved by a callback of every later turn.
    let turn = 0;
    let ticking = true;
    const tick = () => {
      turn++;
      if (ticking) setImmediate(tick);
    };
    setImmediate(tick);
    const madeAt: number[] = [];
    const env: ChildEnvironment = {
      resolveChild: async () => ({ version: 1, definition: leaf.definition }),
      loadChildren: async () => [],
      reserveChildren: async () => {},
      newId: () => {
        madeAt.push(turn);
        return `c${madeAt.length}`;
      },
    };
    const items = Array.from({ length: count }, () => ({}));
    const step = await runChildren(fan.byId.get("each")!, { input: { items }, outputs: {}, _children: {} } as never, {
      taskEpoch: 1,
      scope: { input: { items } } as never,
      env,
    });
    ticking = false;
    expect(step.kind).toBe("spawned");
    expect(madeAt).toHaveLength(count);
    // Before the yields every id was made in the turn planning began.
    expect(madeAt[count - 1], "turns passed while the children were planned").toBeGreaterThanOrEqual(3);
    expect(madeAt[0]).toBe(madeAt[CHILDREN_PER_TURN - 1]);
  });

  it("fails the visit with engine.spawn naming --limit-children-per-visit past the server's bound, starting none", async () => {
    const leaf = compiled({ name: "leaf", tasks: [{ id: "done" }] });
    const fan = compiled({
      name: "fan",
      input_schema: { type: "object", properties: { items: { type: "array", items: { type: "object" } } } },
      tasks: [{ id: "each", action: { type: "child_list", name: "leaf", over: "$: input.items" } }],
    });
    const made: string[] = [];
    const env: ChildEnvironment = {
      resolveChild: async () => ({ version: 1, definition: leaf.definition }),
      loadChildren: async () => [],
      reserveChildren: async () => {},
      newId: () => {
        made.push("id");
        return "c";
      },
    };
    const items = [{}, {}, {}, {}];
    const failure = await runChildren(
      fan.byId.get("each")!,
      { input: { items }, outputs: {}, _children: {} } as never,
      { taskEpoch: 1, scope: { input: { items } } as never, env, maxChildren: 3 },
    ).then(
      () => undefined,
      (error: unknown) => error as { code?: string; message: string },
    );
    expect(failure?.code).toBe("engine.spawn");
    expect(failure?.message).toBe(
      'task "each" would start 4 children; at most 3 may be started by one task visit (--limit-children-per-visit)',
    );
    expect(made).toEqual([]);
  });
});
