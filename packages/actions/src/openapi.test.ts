import { Validator } from "@seriousme/openapi-schema-validator";
import { describe, expect, it } from "vitest";
import { buildOpenApi } from "./openapi.js";
import { findAction, registry } from "./registry.js";

type Doc = Record<string, any>;

const doc = buildOpenApi(registry) as Doc;

function operationOf(name: string): Doc {
  const spec = findAction(name);
  return doc.paths[spec.path][spec.method];
}

describe("buildOpenApi", () => {
  it("produces a valid OpenAPI 3.1 document", async () => {
    const validator = new Validator();
    const result = await validator.validate(structuredClone(doc));
    expect(result.errors, JSON.stringify(result.errors, null, 2)).toBeUndefined();
    expect(result.valid).toBe(true);
    expect(validator.version).toBe("3.1");
  });

  it("declares version 1.0.0 and the /api base path once", () => {
    expect(doc.openapi).toBe("3.1.0");
    expect(doc.info).toMatchObject({ title: "Baton API", version: "1.0.0" });
    expect(doc.servers).toEqual([{ url: "/api" }]);
    for (const path of Object.keys(doc.paths))
      expect(path.startsWith("/api"), `${path} must be relative to the server`).toBe(false);
  });

  it("describes /healthz at the /api base (its alias), so generated clients reach it, without credentials", () => {
    for (const [path, item] of Object.entries(doc.paths) as Array<[string, Doc]>)
      expect(item.servers, `${path}: generators ignore path-level servers`).toBeUndefined();
    const health = operationOf("health");
    expect(health.security).toEqual([]);
    expect(health.description).toContain("/api/healthz");
    expect(
      health.description.match(/Needs no credential\./g),
      "the permission sentence is added once, not repeated",
    ).toHaveLength(1);
    expect(
      health.responses["503"].content["application/json"].schema,
      "503 carries the health body, not an ErrorBody",
    ).toEqual({ $ref: "#/components/schemas/Health" });
    expect(health.responses["401"]).toBeUndefined();
  });

  it("types every free-form object as an open map (generators give Record<string, unknown>, not Record<string, never>)", () => {
    const bare: string[] = [];
    const walk = (node: unknown, at: string): void => {
      if (Array.isArray(node)) {
        for (const [i, n] of node.entries()) walk(n, `${at}/${i}`);
        return;
      }
      if (node === null || typeof node !== "object") return;
      const s = node as Doc;
      const types = Array.isArray(s.type) ? s.type : [s.type];
      if (types.includes("object") && s.properties === undefined && s.additionalProperties === undefined) bare.push(at);
      for (const [key, value] of Object.entries(s))
        if (!["example", "examples", "default", "enum", "const"].includes(key)) walk(value, `${at}/${key}`);
    };
    walk(doc, "#");
    expect(bare).toEqual([]);
  });

  it("names the main resources as component schemas and refers to them", () => {
    const schemas = doc.components.schemas as Doc;
    for (const name of [
      "InstanceRow",
      "InstanceStatusView",
      "InstanceDetail",
      "LogEntry",
      "ExternalTask",
      "LifecycleResponse",
      "DefinitionSummary",
      "ChannelEntry",
      "Token",
      "CreatedToken",
      "ErrorBody",
      "CompatReport",
      "ProcessDefinition",
    ])
      expect(schemas[name], name).toBeDefined();
    const detail = operationOf("getInstanceDetail").responses["200"].content["application/json"].schema;
    expect(detail).toEqual({ $ref: "#/components/schemas/InstanceDetail" });
    const put = operationOf("putDefinition").requestBody.content["application/json"].schema;
    expect(put).toEqual({ $ref: "#/components/schemas/ProcessDefinition" });
  });

  it("documents output, error_code and error_message on the detail view", () => {
    const detail = (doc.components.schemas as Doc).InstanceDetail;
    for (const field of ["output", "error_code", "error_message"])
      expect(detail.properties[field], field).toBeDefined();
  });

  it("documents 413 on every endpoint that reads a body", () => {
    for (const spec of registry) {
      const op = operationOf(spec.name);
      const readsBody = spec.body !== undefined || spec.method !== "get";
      expect(op.responses["413"] !== undefined, `${spec.method} ${spec.path}`).toBe(readsBody);
    }
    expect(operationOf("putDefinition").responses["413"].content["application/json"].schema).toEqual({
      $ref: "#/components/schemas/ErrorBody",
    });
  });

  it("contains every registry entry as an operation with its operationId and tag", () => {
    const ids: string[] = [];
    for (const item of Object.values(doc.paths) as Doc[]) {
      for (const [method, op] of Object.entries(item)) if (method !== "servers") ids.push(op.operationId);
    }
    expect(ids.sort()).toEqual(registry.map((spec) => spec.name).sort());
    for (const spec of registry) expect(operationOf(spec.name).tags).toEqual([spec.tag]);
    const tagNames = (doc.tags as { name: string }[]).map((tag) => tag.name);
    for (const spec of registry) expect(tagNames).toContain(spec.tag);
  });

  it("states permissions in the description, the extension and the security requirement", () => {
    const get = operationOf("getObject");
    expect(get["x-baton-permissions"]).toEqual(["worker", "read", "admin"]);
    expect(get.description).toContain("Requires one of: worker, read, admin.");
    expect(get.security).toEqual([{ bearerAuth: [] }]);
    expect(operationOf("createToken")["x-baton-permissions"]).toEqual(["admin"]);
    expect(operationOf("health")["x-baton-permissions"]).toEqual([]);
    expect(operationOf("health").description).toContain("Needs no credential.");
    expect(doc.components.securitySchemes.bearerAuth).toMatchObject({ type: "http", scheme: "bearer" });
  });

  it("says who may call in every operation's description", () => {
    for (const spec of registry) {
      const sentence =
        spec.permissions === "public"
          ? "Needs no credential."
          : `Requires one of: ${[...new Set([...spec.permissions, "admin"])].join(", ")}.`;
      expect(operationOf(spec.name).description.endsWith(sentence), spec.name).toBe(true);
    }
  });

  it("answers every error status with an ErrorBody, plus 401 and 403 on non-public endpoints", () => {
    for (const spec of registry) {
      const op = operationOf(spec.name);
      const expected = [...spec.errors, ...(spec.permissions === "public" ? [] : [401, 403])];
      for (const status of expected) {
        const response = op.responses[String(status)];
        expect(response, `${spec.name} ${status}`).toBeDefined();
        if (spec.responses[status]) continue;
        expect(response.content["application/json"].schema).toEqual({ $ref: "#/components/schemas/ErrorBody" });
      }
    }
    expect(doc.components.schemas.ErrorBody.required).toEqual(["code", "error"]);
  });

  it("uses the endpoint's own wording for an error when it has one", () => {
    expect(operationOf("resumeInstance").responses["409"].description).toContain("settled or being cancelled");
    expect(operationOf("resumeInstance").responses["409"].description).toContain("`conflict`");
  });

  it("turns path and query schemas into described parameters", () => {
    const params = operationOf("listInstanceLogs").parameters as Doc[];
    const id = params.find((p) => p.name === "id")!;
    expect(id).toMatchObject({ in: "path", required: true, schema: { type: "string" } });
    expect(id.description).toBeTruthy();
    const limit = params.find((p) => p.name === "limit")!;
    expect(limit).toMatchObject({
      in: "query",
      required: false,
      schema: { type: "integer", minimum: 1, default: 20 },
    });
    expect(limit.example).toBe(1);
    expect(limit.schema.maximum, "a larger limit is clamped, so it must not be refused").toBeUndefined();
    expect(limit.description).toContain("clamped to 100");
    for (const p of params) expect(p.schema.description, "the description lives on the parameter").toBeUndefined();
  });

  it("documents request bodies, 204 responses and examples", () => {
    const start = operationOf("startInstance");
    expect(start.requestBody.required).toBe(true);
    expect(start.requestBody.content["application/json"].example).toEqual(
      findAction("startInstance").example!.request!.body,
    );
    expect(start.responses["200"].content["application/json"].example).toEqual(
      findAction("startInstance").example!.response,
    );
    expect(operationOf("pauseInstance").responses["204"]).toEqual({ description: expect.any(String) });
    expect(operationOf("tick").requestBody.required, "tick may be called without a body").toBe(false);
    expect(operationOf("getInstance").requestBody).toBeUndefined();
    expect(operationOf("getProcessDocs").responses["200"].content["text/html"]).toBeDefined();
  });

  it("refuses two entries with the same method and path", () => {
    const twice = [findAction("getInstance"), { ...findAction("getInstance"), name: "again" }];
    expect(() => buildOpenApi(twice)).toThrow("two registry entries declare GET /instances/{id}");
  });

  it("returns a document that does not share objects with the registry", () => {
    const copy = buildOpenApi(registry) as Doc;
    copy.paths["/instances"].post.requestBody.content["application/json"].schema.properties.process = { const: "x" };
    expect(
      (findAction("startInstance").body!.properties as Doc).process.const,
      "mutating the document must not change the registry",
    ).toBeUndefined();
  });
});
