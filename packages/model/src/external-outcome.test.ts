import { describe, expect, it } from "vitest";
import { decoded } from "../test/helpers.js";
import { checkExternalError, checkExternalResult } from "./external-outcome.js";

const def = decoded({
  name: "approval",
  tasks: [
    {
      id: "ask",
      action: {
        type: "external",
        result_schema: {
          type: "object",
          properties: { approved: { type: "boolean" }, note: { type: "string", default: "" } },
          required: ["approved"],
        },
      },
      raises: {
        rejected: { type: "object", properties: { reason: { type: "string" } }, required: ["reason"] },
        gone: null,
      },
    },
    { id: "free", action: { type: "external" } },
    { id: "route" },
  ],
});
const [ask, free, route] = def.tasks;

describe("checkExternalResult", () => {
  it("conforms a valid result", () => {
    expect(checkExternalResult(def, ask, { approved: true, extra: 1 })).toEqual({
      ok: true,
      value: { approved: true, note: "" },
    });
  });

  it("reports mismatches under result", () => {
    expect(checkExternalResult(def, ask, { approved: "yes" })).toEqual({
      ok: false,
      problems: [{ path: "result.approved", message: "expected boolean, got a string" }],
    });
  });

  it("accepts anything (absent = null) without result_schema", () => {
    expect(checkExternalResult(def, free, { any: [1] })).toEqual({ ok: true, value: { any: [1] } });
    expect(checkExternalResult(def, free, undefined)).toEqual({ ok: true, value: null });
  });

  it("refuses a task that is not external", () => {
    expect(checkExternalResult(def, route, {})).toEqual({
      ok: false,
      problems: [{ path: "result", message: 'task "route" is not an external task' }],
    });
  });
});

describe("checkExternalError", () => {
  it("accepts a declared code with matching data", () => {
    expect(checkExternalError(def, ask, { code: "rejected", message: "no", data: { reason: "budget" } })).toEqual({
      ok: true,
      value: { code: "rejected", message: "no", data: { reason: "budget" } },
    });
    expect(checkExternalError(def, ask, { code: "gone" })).toEqual({ ok: true, value: { code: "gone" } });
  });

  it("refuses an undeclared code, listing the declared ones", () => {
    expect(checkExternalError(def, ask, { code: "nope" })).toEqual({
      ok: false,
      problems: [{ path: "error.code", message: '"nope" is not raised by task "ask"; expected one of rejected, gone' }],
    });
    expect(checkExternalError(def, free, { code: "x" }).ok).toBe(false);
  });

  it("checks data against the code's schema; null schemas take no data", () => {
    expect(checkExternalError(def, ask, { code: "rejected", data: {} })).toEqual({
      ok: false,
      problems: [{ path: "error.data.reason", message: 'required property "reason" is missing' }],
    });
    expect(
      checkExternalError(def, ask, { code: "rejected" }).ok,
      "missing data is null, which the schema refuses",
    ).toBe(false);
    expect(checkExternalError(def, ask, { code: "gone", data: { x: 1 } })).toEqual({
      ok: false,
      problems: [{ path: "error.data", message: 'code "gone" carries no data (its raises schema is null)' }],
    });
  });

  it("refuses malformed outcomes", () => {
    expect(checkExternalError(def, ask, "rejected")).toEqual({
      ok: false,
      problems: [{ path: "error", message: "expected {code, message?, data?}, got a string" }],
    });
    expect(checkExternalError(def, ask, { code: "gone", msg: "x" }).ok).toBe(false);
    expect(checkExternalError(def, ask, { code: "gone", message: 3 }).ok).toBe(false);
  });
});
