import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Definition } from "@baton/model";
import { describe, expect, it } from "vitest";
import { ambiguousVariables, readSettingFiles, secretVariables, withholdGlobals } from "./setting-grants.js";

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

describe("readSettingFiles", () => {
  const dir = mkdtempSync(join(tmpdir(), "setting-files-"));
  const file = join(dir, "key");
  writeFileSync(file, "filed-value-1\n");

  it("reads each BATON_<…>_FILE into its variable without the final line break, and answers those variables", () => {
    const env: NodeJS.ProcessEnv = { BATON_ORDERS_KEY_FILE: file, BATON_ORDERS_PLAIN: "x", OTHER_FILE: file };
    expect(readSettingFiles(env)).toEqual(["BATON_ORDERS_KEY"]);
    expect(env).toEqual({ BATON_ORDERS_KEY: "filed-value-1", BATON_ORDERS_PLAIN: "x", OTHER_FILE: file });
  });

  it("refuses a variable set both directly and by file, and a file it cannot read, naming the variable", () => {
    expect(() => readSettingFiles({ BATON_A_KEY: "v", BATON_A_KEY_FILE: file })).toThrow(
      "BATON_A_KEY and BATON_A_KEY_FILE are both set; set one of them",
    );
    expect(() => readSettingFiles({ BATON_A_KEY_FILE: join(dir, "missing") })).toThrow(
      `BATON_A_KEY_FILE: cannot read ${join(dir, "missing")} (ENOENT)`,
    );
  });
});

describe("secretVariables", () => {
  it("answers the set variables a pattern matches (* any run of characters) and the filed ones", () => {
    const env = { BATON_ORDERS_TOKEN: "a", BATON_BILLING_TOKEN: "b", BATON_ORDERS_REGION: "c", BATON_X_KEY: "d" };
    expect(secretVariables(env, ["BATON_*_TOKEN", "BATON_UNSET"], ["BATON_X_KEY"])).toEqual([
      "BATON_BILLING_TOKEN",
      "BATON_ORDERS_TOKEN",
      "BATON_X_KEY",
    ]);
    expect(secretVariables(env, ["BATON_ORDERS_TOKEN"], [])).toEqual(["BATON_ORDERS_TOKEN"]);
    expect(secretVariables(env, [], [])).toEqual([]);
  });
});
