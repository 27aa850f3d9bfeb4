import { Validator } from "@seriousme/openapi-schema-validator";
import { describe, expect, it } from "vitest";
import { buildOpenApi } from "./openapi.js";
import { PROCESS_OPERATIONS, buildProcessOpenApi } from "./process-openapi.js";
import { registry } from "./registry.js";
import { requestAjv } from "./test-support/ajv.js";

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

  it("describes the process's events as OpenAPI 3.1 webhooks, the completed output typed by its output schema", async () => {
    const typed = buildProcessOpenApi(full, {
      name: "order-fulfilment",
      input_schema: INPUT_SCHEMA,
      $defs: DEFS,
      output_schema: { type: "object", properties: { shipped: { type: "boolean" } }, required: ["shipped"] },
    }) as Doc & { webhooks: Record<string, any> };
    const checked = await new Validator().validate(structuredClone(typed));
    expect(checked.errors, JSON.stringify(checked.errors, null, 2)).toBeUndefined();
    expect(Object.keys(typed.webhooks).sort()).toEqual([
      "external_task.waiting",
      "instance.cancelled",
      "instance.completed",
      "instance.failed",
      "instance.paused",
      "instance.raised",
    ]);
    const body = typed.webhooks["instance.completed"].post.requestBody.content["application/json"].schema;
    expect(body.properties.type).toEqual({ type: "string", const: "instance.completed" });
    expect(body.properties.data.properties.output).toEqual({
      type: "object",
      properties: { shipped: { type: "boolean" } },
      required: ["shipped"],
    });
    expect(typed.webhooks["instance.completed"].post.parameters.map((p: { name: string }) => p.name)).toEqual([
      "webhook-id",
      "webhook-timestamp",
      "webhook-signature",
    ]);
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

  it("carries the language's secret annotation as an x- extension, never renaming a property called secret", () => {
    const input_schema = {
      type: "object",
      properties: {
        api_key: { type: "string", secret: true },
        secret: { type: "string", description: "a property named secret" },
        nested: { $ref: "#/$defs/creds" },
      },
    };
    const $defs = { creds: { type: "object", properties: { token: { type: "string", secret: true } } } };
    const patched = buildProcessOpenApi(full, { name: "keys", input_schema, $defs }) as Doc;
    const input = startBody(patched).schema.properties.input;
    expect(input.properties.api_key).toEqual({ type: "string", "x-baton-secret": true });
    expect(input.properties.secret).toEqual({ type: "string", description: "a property named secret" });
    expect(patched.components.schemas["keys.creds"].properties.token).toEqual({
      type: "string",
      "x-baton-secret": true,
    });
    expect(JSON.stringify(patched)).not.toContain('"secret":true');
  });

  it("generates start-body examples that validate against their schemas, $ref'd objects included", () => {
    const cases: Array<{ input_schema: Doc; $defs?: Doc }> = [
      { input_schema: { $ref: "#/$defs/order" }, $defs: { order: INPUT_SCHEMA, line: DEFS.line } },
      {
        input_schema: {
          type: "object",
          properties: {
            customer: { $ref: "#/$defs/customer" },
            lines: { type: "array", items: { $ref: "#/$defs/line" }, minItems: 2 },
          },
          required: ["customer", "lines"],
        },
        $defs: {
          ...DEFS,
          customer: {
            type: "object",
            properties: {
              email: { type: "string", minLength: 12 },
              tier: { type: "string", enum: ["gold", "silver"] },
              age: { type: "integer", minimum: 18, maximum: 130 },
              score: { type: "number", minimum: 0.5 },
              code: { type: "string", maxLength: 3 },
            },
            required: ["email", "tier", "age", "score", "code"],
          },
        },
      },
      {
        input_schema: {
          type: "object",
          properties: {
            mode: {
              oneOf: [
                { type: "string", enum: ["fast"] },
                { type: "integer", minimum: 5 },
              ],
            },
            tree: { $ref: "#/$defs/node" },
          },
          required: ["mode", "tree"],
        },
        $defs: {
          node: {
            type: "object",
            properties: {
              label: { type: "string", minLength: 1 },
              children: { type: "array", items: { $ref: "#/$defs/node" } },
            },
            required: ["label"],
          },
        },
      },
      { input_schema: { type: "object", properties: { n: { type: "integer", maximum: -3 } }, required: ["n"] } },
    ];
    for (const c of cases) {
      const patched = buildProcessOpenApi(full, { name: "ex", ...c }) as Doc;
      const example = startBody(patched).example;
      const ajv = requestAjv();
      ajv.addKeyword("secret");
      const validate = ajv.compile({ ...c.input_schema, $defs: { ...c.$defs } });
      expect(validate(example.input), `${JSON.stringify(example)}: ${JSON.stringify(validate.errors)}`).toBe(true);
    }
  });

  it("refuses a document without the start operation", () => {
    expect(() => buildProcessOpenApi({ ...full, paths: {} }, { name: "x" })).toThrow("no startInstance operation");
  });
});
