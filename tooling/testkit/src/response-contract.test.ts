import { describe, expect, it } from "vitest";
import { checkResponse } from "./response-contract.js";

const JSON_TYPE = "application/json";
const status = {
  id: "019a3c1e-7c2b-7d10-8f00-4b6e2a9d1c55",
  process: "p",
  version: 1,
  status: "running",
  task: "a",
  key: null,
  retry_count: 0,
  wake_at: null,
  created_at: "2026-01-02T10:00:00.000Z",
  updated_at: "2026-01-02T10:00:00.000Z",
};
const path = `/api/instances/${status.id}`;

describe("the response contract every test request is held to", () => {
  it("accepts a documented status with a body that matches its schema", () => {
    expect(() => checkResponse("GET", path, 200, JSON_TYPE, JSON.stringify(status))).not.toThrow();
    expect(() =>
      checkResponse("GET", path, 404, JSON_TYPE, JSON.stringify({ code: "not_found", error: "no such instance" })),
    ).not.toThrow();
  });

  it("refuses a field the document does not declare, even though the published schema stays open", () => {
    expect(() => checkResponse("GET", path, 200, JSON_TYPE, JSON.stringify({ ...status, surprise: 1 }))).toThrow(
      /getInstance documents for 200: .*additional properties.*surprise/,
    );
  });

  it("refuses an undocumented status, a missing required field and a body where none is documented", () => {
    expect(() => checkResponse("GET", path, 409, JSON_TYPE, "{}")).toThrow(
      /status 409 is not documented for getInstance/,
    );
    const { task: _task, ...withoutTask } = status;
    expect(() => checkResponse("GET", path, 200, JSON_TYPE, JSON.stringify(withoutTask))).toThrow(/task/);
  });

  it("serves /healthz under both addresses and checks error bodies of paths no operation declares", () => {
    const health = { status: "ok", worker_id: "w", database: "pglite", lease_age_ms: 1, manual_tick: true };
    expect(() => checkResponse("GET", "/healthz", 200, JSON_TYPE, JSON.stringify(health))).not.toThrow();
    expect(() => checkResponse("GET", "/api/healthz", 200, JSON_TYPE, JSON.stringify(health))).not.toThrow();
    expect(() => checkResponse("GET", "/api/nowhere", 404, JSON_TYPE, JSON.stringify({ error: "x" }))).toThrow(
      /not an ErrorBody/,
    );
    expect(() => checkResponse("GET", "/public/docs", 200, "text/html", "<html></html>")).not.toThrow();
  });
});
