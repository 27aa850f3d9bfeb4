import { describe, expect, it } from "vitest";
import { parseRoute, withParams, type Route, routeHash } from "./route.js";

describe("parseRoute", () => {
  it("opens the instance list on an empty hash", () => {
    expect(parseRoute("")).toEqual({ page: "instances", search: "" });
    expect(parseRoute("#/")).toEqual({ page: "instances", search: "" });
  });

  it("keeps the instance list's query for the filters", () => {
    expect(parseRoute("#/instances?status=failed&process=p")).toEqual({
      page: "instances",
      search: "status=failed&process=p",
    });
  });

  it("reads ids, names and versions", () => {
    expect(parseRoute("#/instances/0199-abc")).toEqual({ page: "instance", id: "0199-abc" });
    expect(parseRoute("#/definitions/order.v2")).toEqual({ page: "process", name: "order.v2" });
    expect(parseRoute("#/definitions/order/3")).toEqual({ page: "version", name: "order", version: 3 });
    expect(parseRoute("#/definitions/order/compare?from=1&to=2")).toEqual({
      page: "compare",
      name: "order",
      from: 1,
      to: 2,
    });
  });

  it("ignores versions that are not positive integers", () => {
    expect(parseRoute("#/definitions/order/compare?from=x&to=0")).toEqual({
      page: "compare",
      name: "order",
      from: null,
      to: null,
    });
    expect(parseRoute("#/definitions/order/1.5").page).toBe("not-found");
  });

  it("reports unknown paths as not found", () => {
    expect(parseRoute("#/nope")).toEqual({ page: "not-found", hash: "#/nope" });
  });
});

describe("withParams", () => {
  it("sets and removes its keys and keeps every other one", () => {
    expect(withParams("log_level=warn&children_status=failed", { log_level: null, flat: "true" })).toBe(
      "children_status=failed&flat=true",
    );
    expect(withParams("", { a: "", b: undefined })).toBe("");
  });
});

describe("routeHash", () => {
  it("round-trips every route", () => {
    const routes: Route[] = [
      { page: "instances", search: "" },
      { page: "instances", search: "status=running%2Cpaused" },
      { page: "instance", id: "a b/c" },
      { page: "definitions" },
      { page: "process", name: "order" },
      { page: "version", name: "order", version: 2 },
      { page: "compare", name: "order", from: 1, to: 3 },
      { page: "compare", name: "order", from: null, to: 3 },
      { page: "channels" },
      { page: "external" },
      { page: "external", search: "process=order&claimed=false" },
      { page: "task", instance: "019a3c1e-7c2b-7d10-8f00-4b6e2a9d1c55" },
      { page: "tokens" },
    ];
    for (const route of routes) expect(parseRoute(routeHash(route)), routeHash(route)).toEqual(route);
  });
});
