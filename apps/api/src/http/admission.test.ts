import { describe, expect, it } from "vitest";
import { admission } from "./admission.js";

describe("the admission of large requests", () => {
  it("lets one in at a time, the others in arrival order as each leaves", async () => {
    const gate = admission(1);
    const order: string[] = [];
    const first = await gate.enter();
    const entered = (name: string) => (leave: () => void) => {
      order.push(name);
      return leave;
    };
    const second = gate.enter().then(entered("second"));
    const third = gate.enter().then(entered("third"));
    await Promise.resolve();
    expect(order, "both wait while the first is in").toEqual([]);
    first();
    first(); // leaving twice lets in only one
    const leaveSecond = await second;
    expect(order).toEqual(["second"]);
    leaveSecond();
    (await third)();
    expect(order).toEqual(["second", "third"]);
    const again = await gate.enter();
    again();
  });
});
