import { registry } from "@baton/actions";
import { describe, expect, it } from "vitest";
import { precompile } from "./request-validation.js";

describe("request validators", () => {
  // Routes compile their validators on their first request (request-validation.ts): this is
  // where a schema ajv cannot compile fails, instead of on a request in production.
  it("compiles the path, query and body schema of every registry entry", () => {
    expect(() => precompile(registry)).not.toThrow();
  });
});
