import type { Definition } from "@baton/model";
import { describe, expect, it } from "vitest";
import { ambiguousVariables, withholdGlobals } from "./setting-grants.js";

const withSettings = (name: string, ...settings: string[]) =>
  ({
    name,
    tasks: [],
    config_schema: { type: "object", properties: Object.fromEntries(settings.map((s) => [s, { type: "string" }])) },
  }) as unknown as Definition;

describe("withholdGlobals", () => {
  it("removes every global not shared and answers them; * shares all", () => {
    const env = { BATON_GLOBAL_A: "1", BATON_GLOBAL_B_C: "2", BATON_ORDERS_A: "3" };
    expect(withholdGlobals(env, ["a"])).toEqual(["BATON_GLOBAL_B_C"]);
    expect(env).toEqual({ BATON_GLOBAL_A: "1", BATON_ORDERS_A: "3" });
    const all = { BATON_GLOBAL_A: "1" };
    expect(withholdGlobals(all, ["*"])).toEqual([]);
    expect(all).toEqual({ BATON_GLOBAL_A: "1" });
  });
});

describe("ambiguousVariables", () => {
  it("names a set variable that settings of two processes read, not one read by versions of one process", () => {
    const defs = [
      withSettings("orders", "CRM_TOKEN"),
      withSettings("orders-crm", "TOKEN"),
      withSettings("orders", "CRM_TOKEN", "REGION"),
      withSettings("orders_crm", "REGION"),
    ];
    expect(ambiguousVariables(defs, { BATON_ORDERS_CRM_TOKEN: "t", BATON_ORDERS_REGION: "eu" })).toEqual([
      { variable: "BATON_ORDERS_CRM_TOKEN", readers: ["orders-crm.TOKEN", "orders.CRM_TOKEN"] },
    ]);
    expect(ambiguousVariables(defs, {}), "unset variables are not warned about").toEqual([]);
  });
});
