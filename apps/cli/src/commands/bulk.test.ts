import { describe, expect, it } from "vitest";
import { parseWhere } from "./bulk.js";

describe("parseWhere", () => {
  it("reads key=value pairs, numbers and times, and several statuses", () => {
    expect(parseWhere("status=failed,raised,error_code=http.503,version=3,created_after=2026-01-01T00:00:00Z")).toEqual(
      {
        status: "failed,raised",
        error_code: "http.503",
        version: 3,
        created_after: Date.UTC(2026, 0, 1),
      },
    );
  });

  it("names what is wrong: an unknown key, a bare word, a missing value, a non-number", () => {
    expect(() => parseWhere("colour=red")).toThrow(/unknown filter "colour"/);
    expect(() => parseWhere("process=a,b")).toThrow(/"b" is not key=value/);
    expect(() => parseWhere("process=")).toThrow(/"process" has no value/);
    expect(() => parseWhere("version=three")).toThrow(/"version" must be a number/);
  });
});
