import { ApiError } from "@baton/actions";
import { describe, expect, it } from "vitest";
import { reportError } from "./error-report.js";

describe("reportError", () => {
  it("prints a field problem once when the server's message ends with it", () => {
    const error = new ApiError(
      400,
      "invalid",
      'the input does not match the input_schema of process "greet" version 1: input.who: required property "who" is missing',
      [{ path: "input.who", message: 'required property "who" is missing' }],
    );
    expect(reportError(error).lines).toEqual([
      'error: invalid: the input does not match the input_schema of process "greet" version 1',
      '  input.who: required property "who" is missing',
    ]);
  });

  it("keeps a message that does not repeat its field problems whole", () => {
    const error = new ApiError(400, "invalid", "2 problems", [{ path: "a", message: "m" }]);
    expect(reportError(error).lines).toEqual(["error: invalid: 2 problems", "  a: m"]);
  });
});
