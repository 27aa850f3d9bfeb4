import { describe, expect, it } from "vitest";
import { parseWrittenJson, stringifyJson } from "./json.js";
import { parseWrittenJsonInSteps } from "./json-steps.js";

/** Runs the generator to its end: its value (or error, as text) and how many steps it yielded. */
function run(text: string, stepChars: number): { outcome: string; steps: number } {
  const steps = parseWrittenJsonInSteps(text, stepChars);
  let count = 0;
  try {
    for (let next = steps.next(); ; next = steps.next()) {
      if (next.done) return { outcome: shown(next.value), steps: count };
      count++;
    }
  } catch (error) {
    return { outcome: `error ${(error as Error).name}: ${(error as Error).message}`, steps: count };
  }
}

/** A value as text that shows LosslessNumbers, own "__proto__" keys and key order. */
function shown(value: unknown): string {
  return `value ${stringifyJson(value)} own-proto ${JSON.stringify(protoKeys(value))}`;
}

function protoKeys(value: unknown): number {
  if (Array.isArray(value)) return value.reduce((n: number, v) => n + protoKeys(v), 0);
  if (value === null || typeof value !== "object" || Object.getPrototypeOf(value) !== Object.prototype) return 0;
  let n = Object.hasOwn(value, "__proto__") ? 1 : 0;
  for (const v of Object.values(value)) n += protoKeys(v);
  return n;
}

function whole(text: string): string {
  try {
    return shown(parseWrittenJson(text));
  } catch (error) {
    return `error ${(error as Error).name}: ${(error as Error).message}`;
  }
}

describe("parseWrittenJsonInSteps", () => {
  it("returns exactly parseWrittenJson's value or error, split at every size, on tricky and generated text", () => {
    const tricky = [
      '{"a":[1,2,3],"b":{"c":"}],[{:"}}',
      '{"s":"{\\"a\\":1,\\"a\\":2}","t":"[]{}:,","u":"\\\\"}',
      '{"big":12345678901234567890,"tiny":1e-400,"exp":1E5,"neg":-0,"f":0.1,"x":[1e400,2]}',
      '{"__proto__":{"x":1},"constructor":2,"n":[{"__proto__":[1]}]}',
      ' \n{ "k" :\t[ {"k":1} , {"k":2} ] , "e" : [ ] , "o" : { } } ',
      '[[],[[]],{},[{}],"",0]',
      '{"a":1,}',
      "[1,2,",
      "[1,,2]",
      "[,1]",
      '{"a" 1}',
      '{"a":1 "b":2}',
      '{"a":1}}',
      '{"a":1}x',
      "[1 2]",
      "{1:2}",
      '{"a":}',
      "[1]]",
      "]",
    ];
    let seed = 11;
    const random = () => {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      return seed / 2147483648;
    };
    const keys = ["a", "b", "\\u0062", 'a\\"', "{", ":", "]", "__proto__", "constructor"];
    const atoms = [
      "1",
      "-2.5",
      "12345678901234567890",
      "1e400",
      "true",
      "null",
      '"x"',
      '"{\\"a\\":[1,"',
      "0.1000000000000000055511151231257827",
    ];
    const generate = (depth: number): string => {
      const r = random();
      if (depth > 4 || r < 0.25) return atoms[Math.floor(random() * atoms.length)]!;
      const n = Math.floor(random() * 5);
      if (r < 0.6) return `[${Array.from({ length: n }, () => generate(depth + 1)).join(",")}]`;
      const used = new Set<string>();
      const members: string[] = [];
      for (let i = 0; i < n; i++) {
        const key = keys[Math.floor(random() * keys.length)]!;
        // Written text names a key once ("\\u0062" is "b").
        const name = key === "\\u0062" ? "b" : key;
        if (used.has(name)) continue;
        used.add(name);
        members.push(`"${key}":${generate(depth + 1)}`);
      }
      return `{${members.join(",")}}`;
    };
    const texts = [...tricky, ...Array.from({ length: 1_500 }, () => generate(0))];
    for (const text of texts)
      for (const stepChars of [1, 4, 16, 64, 1_000_000]) expect(run(text, stepChars).outcome, text).toBe(whole(text));
  });

  it("yields about once per step of the text, and not at all for text shorter than one step", () => {
    const definition = JSON.stringify({
      name: "big",
      tasks: Array.from({ length: 2_000 }, (_, i) => ({ id: `t${i}`, output: { n: `$: outputs.t${i}.n + 1` } })),
    });
    const { outcome, steps } = run(definition, 1_000);
    expect(outcome).toBe(whole(definition));
    expect(steps).toBeGreaterThanOrEqual(definition.length / 1_000 - 1);
    expect(run(definition, definition.length).steps).toBe(0);
  });
});
