// biome-ignore-all lint/suspicious/noTemplateCurlyInString: "${ }" is the definition language's interpolation
import { describe, expect, it } from "vitest";
import { decoded } from "../../test/helpers.js";
import { compareDefinitions, upgradeBlockers } from "./compare.js";

const URL = "https://pay.example.com/charge";
const fetchTask = (id: string, extra: Record<string, unknown> = {}) => ({
  id,
  action: { type: "fetch", url: URL },
  ...extra,
});
const external = (id: string, input: unknown, extra: Record<string, unknown> = {}) => ({
  id,
  action: { type: "external", input },
  ...extra,
});
const def = (tasks: unknown[], extra: Record<string, unknown> = {}) => decoded({ name: "p", ...extra, tasks });
const blockers = (from: ReturnType<typeof def>, to: ReturnType<typeof def>, on: string[]) =>
  upgradeBlockers(from, to, 1, 2, on).map((b) => `${b.task}:${b.address}${b.path}`);

describe("upgrade: the error root by how the sitting task is entered", () => {
  // v1: charge falls through to notify. v2: notify is reached only when charge fails.
  const normal = def([
    fetchTask("charge", { switch: "next", on_error: [{ goto: "$notify" }] }),
    external("notify", { reason: "${error.code ?? 'none'}" }),
  ]);
  const v1 = def([fetchTask("charge"), external("notify", { sent: true })]);
  const errorOnly = (notifyInput: unknown, more: unknown[] = []) =>
    def([
      fetchTask("charge", { switch: [{ goto: "end" }], on_error: [{ goto: "$notify" }] }),
      external("notify", notifyInput, more.length > 0 ? {} : { switch: "end" }),
      ...more,
    ]);

  it("gates an instance that reached the task normally when the new version reads error there as set", () => {
    for (const input of [
      { reason: "${error.code}" },
      { reason: "at ${error.task}" },
      { text: "${error.message} (${error.task})" },
    ]) {
      const to = errorOnly(input);
      const r = compareDefinitions(v1, to, 1, 2);
      expect(r.upgrade.compatible, JSON.stringify(input)).toBe(false);
      expect(blockers(v1, to, ["notify"]), JSON.stringify(input)).toEqual(["notify:tasks.notify"]);
      expect(blockers(v1, to, ["charge"]), "an instance on charge enters notify as v2 does").toEqual([]);
    }
  });

  it("gates it when the read only breaks downstream, through the sitting task's output", () => {
    const to = def([
      fetchTask("charge", { switch: [{ goto: "end" }], on_error: [{ goto: "$notify" }] }),
      { id: "notify", action: { type: "external" }, output: { code: "$: error.code" } },
      external("report", { text: "code ${outputs.notify.code}" }),
    ]);
    const from = def([fetchTask("charge"), external("notify", {}), external("report", {})]);
    expect(blockers(from, to, ["notify"])).toEqual(["notify:tasks.notify"]);
  });

  it("lets it through when every read of error tolerates null", () => {
    for (const input of [
      { reason: "${error.code ?? 'none'}" },
      { code: "$: error.code" },
      { sent: true },
      "$: error == null ? 'ok' : error.message",
    ]) {
      const r = compareDefinitions(v1, errorOnly(input), 1, 2);
      expect(r.upgrade.compatible, `${JSON.stringify(input)}: ${JSON.stringify(r.issues)}`).toBe(true);
    }
  });

  it("lets it through when the old version also entered the task only through on_error, or the new one also normally", () => {
    const from = errorOnly({ reason: "${error.message}" });
    expect(compareDefinitions(from, errorOnly({ reason: "${error.code}" }), 1, 2).upgrade.compatible).toBe(true);
    expect(compareDefinitions(v1, normal, 1, 2).upgrade.compatible).toBe(true);
  });

  it("gates a task entered both ways in the old version and only through on_error in the new one", () => {
    const from = def([
      fetchTask("charge", { switch: "next", on_error: [{ goto: "$notify" }] }),
      external("notify", { reason: "${error.code ?? 'none'}" }),
    ]);
    const to = errorOnly({ reason: "${error.code}" });
    expect(blockers(from, to, ["notify"])).toEqual(["notify:tasks.notify"]);
  });

  it("checks the stored error data against what the new version reads", () => {
    const failing = (schema: Record<string, unknown>, read: string) =>
      def([
        {
          id: "charge",
          action: { type: "fetch", url: URL, responses: { "200": null, "402": schema } },
          on_error: [{ code: ["http.402"], goto: "$notify" }],
          switch: "end",
        },
        external("notify", { reason: read }),
      ]);
    const from = failing({ type: "object", properties: { reason: { type: "string" } }, required: ["reason"] }, "x");
    const same = failing({ type: "object", properties: { reason: { type: "string" } }, required: ["reason"] }, "y");
    const retyped = failing(
      { type: "object", properties: { reason: { type: "integer" } }, required: ["reason"] },
      "$: error.data.reason",
    );
    expect(compareDefinitions(from, same, 1, 2).upgrade.compatible).toBe(true);
    const r = compareDefinitions(from, retyped, 1, 2);
    expect(r.issues).toContainEqual(
      expect.objectContaining({
        member: "upgrade",
        address: "tasks.notify",
        path: "/error/data/properties/reason/type",
        gating: true,
      }),
    );
  });
});

describe("upgrade: nullable reads (a missing key reads as null)", () => {
  const withInput = (input_schema: Record<string, unknown>, read = "$: input") =>
    def([external("wait", { got: read })], { input_schema });
  const obj = (properties: Record<string, unknown>, required: string[] = []) => ({
    type: "object",
    properties,
    required,
  });

  it("passes a newly required input property whose type admits null", () => {
    const from = withInput(obj({ id: { type: "string" } }, ["id"]));
    for (const note of [
      { type: ["string", "null"] },
      { type: "null" },
      { anyOf: [{ type: "integer" }, { type: "null" }] },
    ]) {
      const to = withInput(obj({ id: { type: "string" }, note }, ["id", "note"]));
      const r = compareDefinitions(from, to, 1, 2);
      expect(r.upgrade.compatible, `${JSON.stringify(note)}: ${JSON.stringify(r.issues)}`).toBe(true);
      expect(r.contract.compatible, "a raw input without note is refused by the new version").toBe(false);
    }
  });

  it("passes an optional property retyped to a required nullable one, and still gates a real retype", () => {
    const from = withInput(obj({ x: { type: "string" }, n: { type: "integer" } }));
    const ok = withInput(obj({ x: { type: ["string", "null"] }, n: { type: ["number", "null"] } }, ["x", "n"]));
    expect(compareDefinitions(from, ok, 1, 2).upgrade.compatible).toBe(true);
    const bad = withInput(obj({ x: { type: ["integer", "null"] } }, ["x"]));
    expect(compareDefinitions(from, bad, 1, 2).issues).toContainEqual(
      expect.objectContaining({ member: "upgrade", path: "/properties/x/type", gating: true }),
    );
    const nonNull = withInput(obj({ x: { type: "string" } }, ["x"]));
    expect(compareDefinitions(from, nonNull, 1, 2).upgrade.compatible, "a missing x reads null, typed string").toBe(
      false,
    );
  });

  it("passes a stored output missing a key the new version requires as nullable", () => {
    const charge = (schema: Record<string, unknown>, input: unknown) =>
      def([{ id: "charge", action: { type: "fetch", url: URL, result_schema: schema } }, external("ship", input)]);
    const from = charge(obj({ id: { type: "string" }, note: { type: "string" } }, ["id"]), {
      id: "$: outputs.charge.id",
    });
    for (const note of [{ type: ["string", "null"] }, { type: ["null", "string"], maxLength: 5 }]) {
      const to = charge(obj({ id: { type: "string" }, note }, ["id", "note"]), {
        n: "$: outputs.charge.note ?? 'x'",
      });
      const issues = compareDefinitions(from, to, 1, 2).issues.filter((i) => i.member === "upgrade" && i.gating);
      if ("maxLength" in note)
        expect(
          issues.map((i) => i.path),
          "a longer stored note is still refused",
        ).toEqual(["/properties/note/maxLength"]);
      else expect(issues).toEqual([]);
    }
    const required = charge(obj({ id: { type: "string" }, note: { type: "string" } }, ["id", "note"]), {});
    expect(upgradeBlockers(from, required, 1, 2, ["ship"]).map((b) => b.path)).toEqual(["/properties/note"]);
  });
});

describe("upgrade: defaults filled into the stored input", () => {
  const withInput = (input_schema: Record<string, unknown>) =>
    def([external("wait", { got: "$: input" })], { input_schema });

  it("passes a property that becomes required where the old version's default filled every stored input", () => {
    const cases: Array<[Record<string, unknown>, Record<string, unknown>]> = [
      [
        { type: "object", properties: { region: { type: "string", default: "eu" } } },
        { type: "object", properties: { region: { type: "string" } }, required: ["region"] },
      ],
      [
        { type: "object", properties: { n: { type: "integer", minimum: 1, default: 3 } } },
        { type: "object", properties: { n: { type: "number", minimum: 0 } }, required: ["n"] },
      ],
      [
        {
          type: "object",
          properties: { opts: { type: "object", properties: { fast: { type: "boolean", default: false } } } },
          required: ["opts"],
        },
        {
          type: "object",
          properties: { opts: { type: "object", properties: { fast: { type: "boolean" } }, required: ["fast"] } },
          required: ["opts"],
        },
      ],
      [
        {
          type: "object",
          properties: { region: { $ref: "#/$defs/region" } },
          $defs: { region: { type: "string", default: "eu" } },
        },
        { type: "object", properties: { region: { type: "string", default: "us" } } },
      ],
    ];
    for (const [a, b] of cases) {
      const r = compareDefinitions(withInput(a), withInput(b), 1, 2);
      expect(r.upgrade.compatible, `${JSON.stringify(a)} → ${JSON.stringify(b)}: ${JSON.stringify(r.issues)}`).toBe(
        true,
      );
    }
  });

  it("still gates the same change without a default, and a default the new type refuses", () => {
    const a = { type: "object", properties: { region: { type: "string" } } };
    const b = { type: "object", properties: { region: { type: "string" } }, required: ["region"] };
    expect(compareDefinitions(withInput(a), withInput(b), 1, 2).upgrade.compatible).toBe(false);
    const c = { type: "object", properties: { n: { type: "integer", default: 3 } } };
    const d = { type: "object", properties: { n: { type: "integer", minimum: 5 } }, required: ["n"] };
    expect(compareDefinitions(withInput(c), withInput(d), 1, 2).upgrade.compatible).toBe(false);
  });
});

describe("upgrade: a stored null the old default gave", () => {
  const withInput = (x: Record<string, unknown>, required: string[] = []) =>
    def([external("wait", { got: "$: input.x" })], {
      input_schema: { type: "object", properties: { x }, required },
    });
  const from = withInput({ type: ["string", "null"], default: null });

  it("passes where the new version reads the property as nullable", () => {
    for (const to of [
      withInput({ type: "string" }),
      withInput({ type: ["string", "null"] }, ["x"]),
      withInput({ type: ["null", "string"], default: null }),
      withInput({ anyOf: [{ type: "string" }, { type: "null" }] }, ["x"]),
    ]) {
      const r = compareDefinitions(from, to, 1, 2);
      expect(r.upgrade.compatible, JSON.stringify(r.issues)).toBe(true);
    }
  });

  it("gates where the new version reads it as never null", () => {
    for (const to of [withInput({ type: "string", default: "a" }), withInput({ type: "string" }, ["x"])]) {
      const r = compareDefinitions(from, to, 1, 2);
      expect(r.upgrade.compatible, JSON.stringify(r.issues)).toBe(false);
    }
  });
});
