import { isLosslessNumber, parseJson } from "@baton/expr";
import { describe, expect, it } from "vitest";
import { decoded } from "../test/helpers.js";
import { validateInput } from "./input.js";

const withInput = decoded({
  name: "signup",
  input_schema: {
    type: "object",
    properties: {
      email: { type: "string", minLength: 3 },
      plan: { enum: ["free", "pro"], default: "free" },
      seats: { type: "integer", minimum: 1 },
    },
    required: ["email"],
  },
  tasks: [{ id: "a" }],
});
const withoutInput = decoded({ name: "tick", tasks: [{ id: "a" }] });

describe("validateInput", () => {
  it("conforms a valid input: defaults filled, undeclared keys stripped", () => {
    expect(validateInput(withInput, { email: "a@b.c", junk: 1 })).toEqual({
      ok: true,
      value: { email: "a@b.c", plan: "free" },
    });
  });

  it("reports problems with input.* paths", () => {
    expect(validateInput(withInput, { plan: "gold" })).toEqual({
      ok: false,
      problems: [
        { path: "input.email", message: 'required property "email" is missing' },
        { path: "input.plan", message: 'expected one of "free", "pro"' },
      ],
    });
  });

  it("treats an absent input as {}", () => {
    expect(validateInput(withInput, undefined)).toEqual({
      ok: false,
      problems: [{ path: "input.email", message: 'required property "email" is missing' }],
    });
  });

  it("keeps big numbers exact", () => {
    const r = validateInput(withInput, parseJson('{"email": "abc", "seats": 123456789012345678901234567890}'));
    expect(r.ok).toBe(true);
    if (r.ok) expect(isLosslessNumber((r.value as Record<string, unknown>).seats)).toBe(true);
  });

  it("accepts no or empty input when the process declares none", () => {
    expect(validateInput(withoutInput, undefined)).toEqual({ ok: true, value: {} });
    expect(validateInput(withoutInput, {})).toEqual({ ok: true, value: {} });
    expect(validateInput(withoutInput, null)).toEqual({ ok: true, value: {} });
  });

  it("refuses a non-empty input when the process declares none", () => {
    expect(validateInput(withoutInput, { a: 1 })).toEqual({
      ok: false,
      problems: [
        {
          path: "input",
          message: 'process "tick" declares no input (it has no input_schema), so the input must be empty',
        },
      ],
    });
  });
});
