import type { Definition } from "@baton/model";
import { describe, expect, it } from "vitest";
import type { AdvanceResult } from "./advance/advance-types.js";
import {
  MIN_SECRET_LENGTH,
  redactAdvanceResult,
  redactJson,
  redactJsonText,
  redactText,
  secretValues,
} from "./secrets.js";

const def = (properties: Record<string, unknown>): Definition =>
  ({ name: "pay-svc", tasks: [{ id: "a" }], config_schema: { type: "object", properties } }) as unknown as Definition;

describe("secretValues", () => {
  it("reads secret properties with the config precedence: process variable, then global, then default", () => {
    const d = def({
      key: { type: "string", secret: true },
      other: { type: "string", secret: true, default: "default-secret" },
      plain: { type: "string" },
    });
    expect(
      secretValues(d, {
        BATON_PAY_SVC_KEY: "process-key",
        BATON_GLOBAL_KEY: "global-key",
        BATON_PAY_SVC_PLAIN: "not-secret",
      }),
    ).toEqual(["default-secret", "process-key"]);
    expect(secretValues(d, { BATON_GLOBAL_KEY: "global-key" })).toEqual(["default-secret", "global-key"]);
  });

  it("ignores secrets shorter than MIN_SECRET_LENGTH, unset ones, and definitions without config_schema", () => {
    expect(MIN_SECRET_LENGTH).toBe(4);
    expect(secretValues(def({ pin: { type: "string", secret: true } }), { BATON_PAY_SVC_PIN: "123" })).toEqual([]);
    expect(secretValues(def({ pin: { type: "string", secret: true } }), {})).toEqual([]);
    expect(secretValues({ name: "x", tasks: [] } as unknown as Definition, { BATON_X_PIN: "12345" })).toEqual([]);
  });

  it("renders non-string secrets as JSON and keeps the raw text of an invalid setting secret", () => {
    expect(secretValues(def({ n: { type: "integer", secret: true } }), { BATON_PAY_SVC_N: "123456" })).toEqual([
      "123456",
    ]);
    expect(
      secretValues(def({ n: { type: "integer", secret: true } }), { BATON_PAY_SVC_N: "not json" }),
      "the instance fails with engine.config, the text stays hidden",
    ).toEqual(["not json"]);
  });

  it("orders longest first so a secret containing another is replaced whole", () => {
    const secrets = secretValues(def({ a: { type: "string", secret: true }, b: { type: "string", secret: true } }), {
      BATON_PAY_SVC_A: "abcd",
      BATON_PAY_SVC_B: "abcdefgh",
    });
    expect(secrets).toEqual(["abcdefgh", "abcd"]);
    expect(redactText("x abcdefgh y abcd", secrets)).toBe("x *** y ***");
  });
});

describe("redactText", () => {
  it("replaces every occurrence, also inside longer words and URLs", () => {
    expect(redactText("GET https://h/x?k=s3cr3t&again=s3cr3ts3cr3t", ["s3cr3t"])).toBe(
      "GET https://h/x?k=***&again=******",
    );
  });

  it("replaces the URL-encoded forms a query string gives a secret (component, form and lower-case hex)", () => {
    const secret = "p@ss w/rd&key=1~é";
    const url = new URL("https://up.example/echo");
    url.searchParams.append("token", secret);
    const echoed = `upstream said: bad request to ${url.href}`;
    expect(echoed).not.toContain(secret);
    expect(redactText(echoed, [secret])).toBe("upstream said: bad request to https://up.example/echo?token=***");
    expect(redactText(`q=${encodeURIComponent(secret)}`, [secret])).toBe("q=***");
    expect(redactText(`q=${encodeURIComponent(secret).toLowerCase()}`, [secret])).toBe("q=***");
    expect(redactText(`path ${encodeURI(secret)}`, [secret])).toBe("path ***");
  });

  it("replaces JSON-escaped forms, with \\/ and \\u escapes too", () => {
    const secret = 'a"b\\c/d\u00e9-long';
    expect(redactText(`{"echo":${JSON.stringify(secret)}}`, [secret])).toBe('{"echo":"***"}');
    expect(redactText(JSON.stringify(secret).replace(/\//g, "\\/"), [secret])).toBe('"***"');
    expect(redactText('"a\\"b\\\\c\\/d\\u00e9-long"', [secret])).toBe('"***"');
  });

  it("replaces base64 of the secret, and its core inside Basic credentials at any alignment", () => {
    const secret = "correct-horse-battery";
    expect(redactText(Buffer.from(secret).toString("base64"), [secret])).toBe("***");
    expect(redactText(Buffer.from(secret).toString("base64url"), [secret])).toBe("***");
    for (const user of ["a", "ab", "abc", "service-account"]) {
      const basic = `Authorization: Basic ${Buffer.from(`${user}:${secret}`).toString("base64")}`;
      const redacted = redactText(basic, [secret]);
      expect(redacted, user).toContain("***");
      // What is left around the mark is at most the characters that mix the secret with its neighbours.
      const left = redacted.slice("Authorization: Basic ".length).replace("***", "");
      expect(left.length, user).toBeLessThanOrEqual(Math.ceil(((user.length + 1 + 4) * 4) / 3) + 4);
    }
  });

  it("does not catch a secret transformed by an expression (documented)", () => {
    expect(redactText("TOKEN=S3CR3T-VALUE", ["s3cr3t-value"])).toBe("TOKEN=S3CR3T-VALUE");
  });

  it("leaves text without secrets, or with no secrets given, unchanged", () => {
    expect(redactText("nothing here", ["s3cr3t"])).toBe("nothing here");
    expect(redactText("s3cr3t", [])).toBe("s3cr3t");
  });
});

describe("redactJson", () => {
  it("redacts strings and keys at any depth and leaves numbers, booleans and null alone", () => {
    const value = { a: "Bearer s3cr3t", list: [1, true, null, { s3cr3t: "s3cr3t" }], n: 1.5 };
    expect(redactJson(value, ["s3cr3t"])).toEqual({ a: "Bearer ***", list: [1, true, null, { "***": "***" }], n: 1.5 });
    expect(value.a, "the input is not mutated").toBe("Bearer s3cr3t");
  });

  it("passes undefined through", () => {
    expect(redactJson(undefined, ["s3cr3t"])).toBeUndefined();
  });
});

describe("redactJsonText", () => {
  it("redacts inside stored JSON text, including escaped occurrences, keeping exact numbers", () => {
    expect(redactJsonText('{"k":"s3cr3t","big":12345678901234567890}', ["s3cr3t"])).toBe(
      '{"k":"***","big":12345678901234567890}',
    );
    expect(redactJsonText('{"k":"a\\"b-secret"}', ['a"b-secret'])).toBe('{"k":"***"}');
    expect(redactJsonText('{"k":1}', ["s3cr3t"]), "text without the secret is returned as is").toBe('{"k":1}');
  });
});

describe("redactAdvanceResult", () => {
  const result = (): AdvanceResult => ({
    status: "failed",
    task: "call",
    taskEpoch: 1,
    retryCount: 0,
    state: { input: {}, outputs: { call: { echoed: "s3cr3t" } } } as unknown as AdvanceResult["state"],
    written: new Set(["call"]),
    errorCode: "http.500",
    errorMessage: 'task "call": http.500: key s3cr3t rejected',
    wakeAt: null,
    logs: [
      {
        level: "error",
        event: "task.failed",
        message: "http.500: key s3cr3t rejected",
        task: "call",
        data: { code: "http.500", body: "s3cr3t" },
      },
      { level: "info", event: "task.started", message: "started", task: "call", data: null },
    ],
  });

  it("redacts log messages, log data and error_message, but keeps the state to be stored", () => {
    const out = redactAdvanceResult(result(), ["s3cr3t"]);
    expect(out.errorMessage).toBe('task "call": http.500: key *** rejected');
    expect(out.logs[0]).toMatchObject({
      message: "http.500: key *** rejected",
      data: { code: "http.500", body: "***" },
    });
    expect(out.logs[1].data).toBeNull();
    expect(
      (out.state.outputs as Record<string, unknown>).call,
      "later tasks read the stored state: it keeps the real value",
    ).toEqual({ echoed: "s3cr3t" });
  });

  it("changes nothing without secrets", () => {
    const r = result();
    expect(redactAdvanceResult(r, []).errorMessage).toBe('task "call": http.500: key s3cr3t rejected');
  });
});
