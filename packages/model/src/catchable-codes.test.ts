import { describe, expect, it } from "vitest";
import type { Task } from "./definition.js";
import { unreachableCodeReason } from "./catchable-codes.js";

const fetchTask: Task = {
  id: "f",
  action: { type: "fetch", url: "https://x", method: "post" },
  switch: [],
  on_error: [],
};
const extTask: Task = { id: "e", action: { type: "external" }, raises: { declined: null }, switch: [], on_error: [] };
const childTask: Task = { id: "c", action: { type: "child", name: "k" }, switch: [], on_error: [] };

describe("unreachableCodeReason", () => {
  it("accepts what a fetch can fail with", () => {
    for (const code of [
      "http.404",
      "http.503",
      "pre.error",
      "pre.timeout",
      "http.timeout",
      "http.disconnected",
      "output.parse",
      "output.too_large",
      "output.invalid",
    ])
      expect(unreachableCodeReason(fetchTask, code), code).toBeUndefined();
    expect(unreachableCodeReason(fetchTask, "http.600")).toMatch(/fetch task fails only/);
    expect(unreachableCodeReason(fetchTask, "declined")).toMatch(/fetch task fails only/);
  });

  it("accepts external.timeout and declared raises on an external task", () => {
    expect(unreachableCodeReason(extTask, "external.timeout")).toBeUndefined();
    expect(unreachableCodeReason(extTask, "declined")).toBeUndefined();
    expect(unreachableCodeReason(extTask, "other")).toMatch(/\(declined\)/);
  });

  it("accepts authored codes and output.invalid on a child task", () => {
    expect(unreachableCodeReason(childTask, "anything_raised")).toBeUndefined();
    expect(unreachableCodeReason(childTask, "output.invalid")).toBeUndefined();
    expect(unreachableCodeReason(childTask, "http.500")).toMatch(/children raise/);
  });

  it("never judges wildcards", () => {
    expect(unreachableCodeReason(fetchTask, "zz%")).toBeUndefined();
  });

  it("accepts only_once.interrupted only on only_once tasks", () => {
    expect(unreachableCodeReason(fetchTask, "only_once.interrupted")).toMatch(/only_once/);
    expect(unreachableCodeReason({ ...fetchTask, only_once: true }, "only_once.interrupted")).toBeUndefined();
  });
});
