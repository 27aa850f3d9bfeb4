import { describe, expect, it } from "vitest";
import { decoded } from "../test/helpers.js";
import { declaredRaises } from "./raises.js";

describe("declaredRaises", () => {
  it("is the sorted union of raises keys and authored raise codes, without panics", () => {
    const def = decoded({
      name: "p",
      tasks: [
        {
          id: "a",
          action: { type: "external" },
          raises: { declined: null, b_code: { type: "object" } },
          on_error: [{ code: "declined", raise: { code: "payment_failed", message: "x" } }],
        },
        {
          id: "b",
          switch: [
            { case: "true", raise: { code: "a_code", message: "x" } },
            { panic: { code: "broken", message: "y" } },
          ],
        },
      ],
    });
    expect(declaredRaises(def)).toEqual(["a_code", "b_code", "declined", "payment_failed"]);
  });

  it("is empty when nothing is raised", () => {
    expect(declaredRaises(decoded({ name: "p", tasks: [{ id: "a" }] }))).toEqual([]);
  });
});
