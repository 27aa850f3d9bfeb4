import { DrizzleQueryError } from "drizzle-orm/errors";
import { describe, expect, it } from "vitest";
import { errorStack, errorText } from "./loggable-error.js";

describe("loggable errors", () => {
  const cause = Object.assign(new Error('invalid byte sequence for encoding "UTF8": 0x00'), { code: "22021" });
  const wrapped = new DrizzleQueryError("update instances set state = $1", ['{"secret":"hunter2"}'], cause);

  it("describes a failed statement by the driver's message, without its SQL or parameters", () => {
    expect(wrapped.message, "drizzle's own message carries the parameters").toContain("hunter2");
    expect(errorText(wrapped)).toBe('invalid byte sequence for encoding "UTF8": 0x00');
  });

  it("keeps the stack's frames but not the message's parameters", () => {
    const stack = errorStack(wrapped)!;
    expect(stack).not.toContain("hunter2");
    expect(stack).not.toContain("update instances");
    expect(stack).toContain("invalid byte sequence");
    expect(stack).toMatch(/\n\s+at /);
  });

  it("passes other errors' messages through", () => {
    expect(errorText(new Error("boom"))).toBe("boom");
    expect(errorText("plain")).toBe("plain");
  });
});
