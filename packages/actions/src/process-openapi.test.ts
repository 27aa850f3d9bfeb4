import { Validator } from "@seriousme/openapi-schema-validator";
import { describe, expect, it } from "vitest";
import { buildOpenApi } from "./openapi.js";
import { PROCESS_OPERATIONS, buildProcessOpenApi } from "./process-openapi.js";
import { registry } from "./registry.js";

type Doc = Record<string, any>;

const full = buildOpenApi(registry) as Doc;
const INPUT_SCHEMA = {
  type: "object",
  properties: { order_id: { type: "string" }, lines: { type: "array", items: { $ref: "#/$defs/line" } } },
  required: ["order_id"],
};
const DEFS = {
  line: {
    type: "object",
    properties: { sku: { type: "string" }, qty: { type: "integer", minimum: 1 } },
    required: ["sku"],
  },
};

function operations(doc: Doc): Doc[] {
  return (Object.values(doc.paths) as Doc[]).flatMap((item) =>
    Object.entries(item)
      .filter(([k]) => k !== "servers")
      .map(([, op]) => op as Doc),
  );
}

function startBody(doc: Doc): Doc {
  return doc.paths["/instances"].post.requestBody.content["application/json"];
}

describe("buildProcessOpenApi", () => {
  const doc = buildProcessOpenApi(full, { name: "order-fulfilment", input_schema: INPUT_SCHEMA, $defs: DEFS }) as Doc;

  it("is a valid OpenAPI 3.1 document", async () => {
    const result = await new Validator().validate(structuredClone(doc));
    expect(result.errors, JSON.stringify(result.errors, null, 2)).toBeUndefined();
    expect(result.valid).toBe(true);
  });

  it("keeps only starting and reading instances", () => {
    expect(
      operations(doc)
        .map((op) => op.operationId)
        .sort(),
    ).toEqual([...PROCESS_OPERATIONS].sort());
    expect(doc.servers).toEqual([{ url: "/api" }]);
    expect(doc.info.version).toBe("1.0.0");
    expect(doc.info.title).toContain("order-fulfilment");
  });

  it("patches the process's input_schema into the start body and fixes the process name", () => {
    const media = startBody(doc);
    expect(media.schema.properties.process).toMatchObject({ const: "order-fulfilment" });
    expect(media.schema.properties.input.properties.order_id).toEqual({ type: "string" });
    expect(media.schema.required, "input is required when its schema requires fields").toEqual(["process", "input"]);
    expect(media.example).toEqual({ process: "order-fulfilment", input: { order_id: "string", lines: [] } });
  });

  it("hoists the definition's $defs into components and repoints the references", () => {
    expect(startBody(doc).schema.properties.input.properties.lines.items).toEqual({
      $ref: "#/components/schemas/order-fulfilment.line",
    });
    expect(doc.components.schemas["order-fulfilment.line"]).toEqual(DEFS.line);
    expect(doc.components.schemas.ErrorBody).toBeDefined();
  });

  it("narrows the process filter of the instance list to this process", () => {
    const param = (doc.paths["/instances"].get.parameters as Doc[]).find((p) => p.name === "process")!;
    expect(param.schema).toEqual({ type: "string", const: "order-fulfilment" });
  });

  it("leaves the full document untouched", () => {
    expect(startBody(full).schema.properties.process.const).toBeUndefined();
    expect(operations(full).length).toBe(registry.length);
  });

  it("says that a process without input_schema takes no input", () => {
    const bare = buildProcessOpenApi(full, { name: "ping" }) as Doc;
    const input = startBody(bare).schema.properties.input;
    expect(input).toMatchObject({ type: "object", maxProperties: 0 });
    expect(startBody(bare).schema.required).toEqual(["process"]);
    expect(startBody(bare).example).toEqual({ process: "ping" });
  });

  it("stays valid with the language's own schema keywords (secret, default, oneOf)", async () => {
    const input_schema = {
      type: "object",
      properties: {
        api_key: { type: "string", secret: true },
        mode: { type: "string", enum: ["a", "b"], default: "a" },
        n: { oneOf: [{ type: "integer" }, { type: "null" }] },
      },
    };
    const patched = buildProcessOpenApi(full, { name: "keys", input_schema }) as Doc;
    const result = await new Validator().validate(structuredClone(patched));
    expect(result.errors, JSON.stringify(result.errors)).toBeUndefined();
    expect(startBody(patched).example).toEqual({ process: "keys", input: { api_key: "string", mode: "a", n: 0 } });
  });

  it("refuses a document without the start operation", () => {
    expect(() => buildProcessOpenApi({ ...full, paths: {} }, { name: "x" })).toThrow("no startInstance operation");
  });
});
