import { LosslessNumber } from "@baton/expr";
import { describe, expect, it } from "vitest";
import { parseYamlDocuments, toYaml } from "./yaml-json.js";

describe("toYaml", () => {
  it("writes big numbers digit for digit and reads back the same value", () => {
    const value = {
      name: "orders",
      limit: new LosslessNumber("12345678901234567890123"),
      rate: 1.5,
      // biome-ignore lint/suspicious/noTemplateCurlyInString: a Baton template, kept verbatim by the converter
      text: "${ input.x }",
      flag: "yes",
    };
    const text = toYaml(value);
    expect(text).toContain("limit: 12345678901234567890123\n");
    const [document] = parseYamlDocuments(text).documents;
    expect(document.value).toEqual(value);
  });

  it("does not fold long strings, so templates survive as written", () => {
    const long = `https://example.com/${"x".repeat(200)}?id=\${ input.id }`;
    expect(toYaml({ url: long })).toBe(`url: ${long}\n`);
  });
});
