// biome-ignore-all lint/suspicious/noTemplateCurlyInString: "${ }" is the definition language's interpolation, not a mistaken JS template
import { describe, expect, it } from "vitest";
import { decoded } from "../test/helpers.js";
import { inferSchemas, NO_INPUT, NO_OUTPUT } from "./infer.js";

describe("inferSchemas", () => {
  it("reports the process, version, input and output", () => {
    const def = decoded({
      name: "greet",
      input_schema: { type: "object", properties: { name: { type: "string" } }, required: ["name"] },
      tasks: [{ id: "say", output: { text: "hello ${input.name}" } }],
      output: { greeting: "$: outputs.say.text", length: "$: len(outputs.say.text)" },
    });
    expect(inferSchemas(def, 4)).toEqual({
      process: "greet",
      version: 4,
      process_input: { type: "object", properties: { name: { type: "string" } }, required: ["name"] },
      process_output: {
        type: "object",
        properties: { greeting: { type: "string" }, length: { type: "integer" } },
        required: ["greeting", "length"],
      },
      tasks: {
        say: {
          action_type: "none",
          output: { type: "object", properties: { text: { type: "string" } }, required: ["text"] },
        },
      },
    });
  });

  it("describes a process without input or output", () => {
    const r = inferSchemas(decoded({ name: "p", tasks: [{ id: "a" }] }), 1);
    expect(r.process_input).toEqual(NO_INPUT);
    expect(r.process_output).toEqual(NO_OUTPUT);
  });

  it("gives fetch tasks their body as input and result_schema as result", () => {
    const def = decoded({
      name: "p",
      $defs: { money: { type: "integer" } },
      tasks: [
        {
          id: "charge",
          action: {
            type: "fetch",
            url: "https://x",
            body: { amount: 5 },
            result_schema: {
              type: "object",
              properties: { id: { type: "string" }, paid: { $ref: "#/$defs/money" } },
              required: ["id"],
            },
          },
          output: { charge: "$: self.result.id", paid: "$: self.result.paid" },
        },
      ],
    });
    const r = inferSchemas(def, 2);
    expect(r.tasks.charge).toEqual({
      action_type: "fetch",
      input: { type: "object", properties: { amount: { type: "integer" } }, required: ["amount"] },
      result: {
        type: "object",
        properties: { id: { type: "string" }, paid: { $ref: "#/$defs/money" } },
        required: ["id"],
      },
      output: {
        type: "object",
        properties: { charge: { type: "string" }, paid: { anyOf: [{ $ref: "#/$defs/money" }, { type: "null" }] } },
        required: ["charge", "paid"],
      },
    });
    expect(r.$defs).toEqual({ money: { type: "integer" } });
  });

  it("types fetch results from the 2xx responses", () => {
    const def = decoded({
      name: "p",
      tasks: [
        {
          id: "f",
          action: {
            type: "fetch",
            url: "https://x",
            responses: { "200": { type: "object" }, "201": { type: "string" }, "404": null },
          },
        },
      ],
    });
    expect(inferSchemas(def, 1).tasks.f.result).toEqual({ type: ["object", "string"] });
  });

  it("gives unknown ({}) where nothing is declared", () => {
    const def = decoded({ name: "p", tasks: [{ id: "w", action: { type: "external" }, output: "$: self.result" }] });
    expect(inferSchemas(def, 1).tasks.w).toEqual({
      action_type: "external",
      input: { type: "null" },
      result: {},
      output: {},
    });
  });

  it("gives child_list its element type as input and an array result", () => {
    const def = decoded({
      name: "p",
      input_schema: {
        type: "object",
        properties: { xs: { type: "array", items: { type: "object", properties: { id: { type: "string" } } } } },
        required: ["xs"],
      },
      tasks: [
        {
          id: "fan",
          action: { type: "child_list", name: "p", over: "$: input.xs", result_schema: { type: "boolean" } },
        },
      ],
    });
    expect(inferSchemas(def, 1).tasks.fan).toEqual({
      action_type: "child_list",
      input: { type: "object", properties: { id: { type: "string" } } },
      result: { type: "array", items: { type: "boolean" } },
      output: { type: "array", items: { type: "boolean" } },
    });
  });

  it("gives delay tasks neither input nor result", () => {
    expect(
      inferSchemas(decoded({ name: "p", tasks: [{ id: "d", action: { type: "delay", for: "1s" } }] }), 1).tasks.d,
    ).toEqual({ action_type: "delay" });
  });
});
