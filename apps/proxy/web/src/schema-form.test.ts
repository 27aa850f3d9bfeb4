import { describe, expect, it } from "vitest";
import { fieldOfPath, formFields, formValue, problemText } from "./schema-form.js";

const EXPENSE = {
  type: "object",
  properties: {
    approved: { type: "boolean" },
    amount: { type: "integer", minimum: 1 },
    level: { type: "string", enum: ["low", "high"] },
    approver: { $ref: "#/$defs/person" },
    tags: { type: "array", items: { type: "string" } },
  },
  required: ["approved", "amount"],
};
const DEFS = {
  person: { type: "object", properties: { name: { type: "string", maxLength: 40 } }, required: ["name"] },
};

describe("formFields", () => {
  it("spreads an object into one field per leaf, following $refs into the definition's $defs", () => {
    const fields = formFields(EXPENSE, DEFS);
    expect(fields.map((f) => [f.path.join("."), f.kind, f.required])).toEqual([
      ["approved", "boolean", true],
      ["amount", "integer", true],
      ["level", "enum", false],
      ["approver.name", "text", true],
      ["tags", "json", false],
    ]);
    expect(fields[1]!.minimum).toBe(1);
    expect(fields[3]!.maxLength).toBe(40);
  });

  it("makes one JSON field of a schema it cannot spread: {} or a dangling or cyclic $ref", () => {
    expect(formFields({})).toEqual([{ path: [], kind: "json", required: true, needed: false }]);
    expect(formFields({ $ref: "#/$defs/missing" })[0]!.kind).toBe("json");
    const loop = { node: { type: "object", properties: { next: { $ref: "#/$defs/node" } } } };
    const fields = formFields({ $ref: "#/$defs/node" }, loop);
    expect(fields).toHaveLength(1);
    expect(fields[0]!.kind, "the cycle ends in a JSON field").toBe("json");
  });
});

describe("formValue", () => {
  const fields = formFields(EXPENSE, DEFS);

  it("builds the value of typed inputs, numbers as numbers, enums by index, empty optional ones left out", () => {
    expect(formValue(fields, { approved: true, amount: "12", level: "1", "approver.name": "Ada", tags: "" })).toEqual({
      value: { approved: true, amount: 12, level: "high", approver: { name: "Ada" } },
      problems: [],
    });
  });

  it("names the field of a number or JSON that does not parse, instead of sending it", () => {
    expect(formValue(fields, { approved: false, amount: "12a", tags: "[1," }).problems.map(problemText)).toEqual([
      'amount: "12a" is not a whole number',
      expect.stringMatching(/^tags: not JSON/),
    ]);
  });

  it("sends a whole-value JSON field as parsed", () => {
    expect(formValue(formFields({}), { value: '{"x": [1]}' })).toEqual({ value: { x: [1] }, problems: [] });
  });

  it("sends a required checkbox never touched as false: a reviewer rejects in one go", () => {
    expect(formValue(fields, { amount: "3", "approver.name": "Ada" })).toEqual({
      value: { approved: false, amount: 3, approver: { name: "Ada" } },
      problems: [],
    });
  });

  it("names every empty required field before sending, but not one inside an optional object", () => {
    const optionalPerson = formFields({ type: "object", properties: { approver: { $ref: "#/$defs/person" } } }, DEFS);
    expect(optionalPerson[0]!.needed, "approver.name is required only once approver is given").toBe(false);
    expect(formValue(fields, {}).problems.map(problemText)).toEqual(["amount: required: fill it in"]);
  });
});

describe("fieldOfPath", () => {
  const fields = formFields(EXPENSE, DEFS);
  it("finds the field an API path names, a missing object's first field, and the JSON field a deeper path is in", () => {
    expect(fieldOfPath(fields, "result.amount", "result")).toBe("amount");
    expect(fieldOfPath(fields, "result.approver", "result"), "the object's first field").toBe("approver.name");
    expect(fieldOfPath(fields, "result.tags.0", "result"), "inside a JSON field").toBe("tags");
    expect(fieldOfPath(fields, "error.data.amount", "result"), "another place").toBeUndefined();
    expect(fieldOfPath(formFields({}), "result", "result"), "the whole value").toBe("value");
  });
});
