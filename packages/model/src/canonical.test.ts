// biome-ignore-all lint/suspicious/noTemplateCurlyInString: "${ }" is the definition language's interpolation, not a mistaken JS template
import { LosslessNumber, parseJson } from "@baton/expr";
import { describe, expect, it } from "vitest";
import { decoded } from "../test/helpers.js";
import { canonicalJson, definitionHash, stableStringify } from "./canonical.js";

const base = {
  name: "orders",
  input_schema: { type: "object", properties: { id: { type: "string" } }, required: ["id"] },
  tasks: [
    {
      id: "charge",
      action: { type: "fetch", url: "https://pay/${input.id}", method: "POST", timeout: "10s" },
      on_error: [{ code: "pre.%", retry: 2 }],
      output: { ok: true },
    },
    { id: "done" },
  ],
};

describe("canonicalJson", () => {
  it("sorts keys recursively and drops undefined members", () => {
    expect(stableStringify({ b: 1, a: { d: [3, { z: 1, y: undefined }], c: null } })).toBe(
      '{"a":{"c":null,"d":[3,{"z":1}]},"b":1}',
    );
  });

  it("keeps LosslessNumbers' exact digits", () => {
    expect(stableStringify(parseJson('{"n": 123456789012345678901234567890}'))).toBe(
      '{"n":123456789012345678901234567890}',
    );
    expect(stableStringify([new LosslessNumber("0.10000000000000000000001")])).toBe("[0.10000000000000000000001]");
  });

  it("refuses values JSON cannot hold", () => {
    expect(() => stableStringify(Number.NaN)).toThrow(/not representable/);
  });

  it("does not depend on the order fields were written in", () => {
    const reordered = {
      tasks: [
        {
          output: { ok: true },
          on_error: [{ retry: 2, code: "pre.%" }],
          action: { timeout: "10s", method: "POST", url: "https://pay/${input.id}", type: "fetch" },
          id: "charge",
        },
        { id: "done" },
      ],
      input_schema: { required: ["id"], properties: { id: { type: "string" } }, type: "object" },
      name: "orders",
    };
    expect(canonicalJson(decoded(reordered))).toBe(canonicalJson(decoded(base)));
  });
});

describe("equivalent definitions hash the same", () => {
  const hash = (raw: unknown) => definitionHash(decoded(raw));
  const task0 = (extra: Record<string, unknown>) => ({
    ...base,
    tasks: [{ ...base.tasks[0], ...extra }, base.tasks[1]],
  });

  it.each([
    ['switch absent vs "next" vs []', { switch: "next" }, { switch: [] }],
    [
      "retry: 2 vs {retries: 2} vs retries: 2",
      { on_error: [{ code: "pre.%", retry: { retries: 2 } }] },
      { on_error: [{ code: ["pre.%"], retries: 2 }] },
    ],
    [
      "default retry fields spelled out",
      { on_error: [{ code: "pre.%", retry: { retries: 2, delay: "1s", factor: 2, max_delay: "5m" } }] },
      { on_error: [{ code: "pre.%", retry: 2 }] },
    ],
    [
      "method case",
      { action: { type: "fetch", url: "https://pay/${input.id}", method: "post", timeout: "10s" } },
      { action: { type: "fetch", url: "https://pay/${input.id}", timeout: "10s" } },
    ],
    [
      "timeout on the task vs in the action",
      { action: { type: "fetch", url: "https://pay/${input.id}", method: "POST" }, timeout: "10s" },
      { action: { type: "fetch", url: "https://pay/${input.id}", timeout: { for: "10s" } } },
    ],
    ["only_once false vs absent", { only_once: false }, {}],
  ])("%s", (_, a, b) => {
    expect(hash(task0(a))).toBe(hash(base));
    expect(hash(task0(b))).toBe(hash(base));
  });

  it('switch "end" equals [{goto: "end"}]', () => {
    expect(hash({ name: "p", tasks: [{ id: "a", switch: "end" }] })).toBe(
      hash({ name: "p", tasks: [{ id: "a", switch: [{ goto: "end" }] }] }),
    );
  });

  it("different definitions hash differently", () => {
    expect(hash(task0({ output: { ok: false } }))).not.toBe(hash(base));
  });

  it("is a stable sha256 hex digest", () => {
    const h = hash({ name: "p", tasks: [{ id: "a" }] });
    expect(h).toMatch(/^[0-9a-f]{64}$/);
    expect(canonicalJson(decoded({ name: "p", tasks: [{ id: "a" }] }))).toBe(
      '{"name":"p","tasks":[{"id":"a","on_error":[],"switch":[]}]}',
    );
    expect(h, "the hash of stored definitions must never change between releases").toBe(
      "ddf0f5d4647679761f43e4bb2ef3587808247fba35de282e88531ea1abad5513",
    );
  });
});

describe("big numbers in definitions", () => {
  it("survive decoding and canonicalisation digit for digit", () => {
    const raw = parseJson(
      '{"name":"p","tasks":[{"id":"a","action":{"type":"fetch","url":"https://x","body":{"amount":12345678901234567890.5}},"output":{"n":99999999999999999999}}]}',
    );
    const text = canonicalJson(decoded(raw));
    expect(text).toContain('"amount":12345678901234567890.5');
    expect(text).toContain('"n":99999999999999999999');
  });
});
