import { describe, expect, it } from "vitest";
import { chromiumPath, DEFAULT_CHROMIUM } from "./harness.js";

describe("the browser the UI tests drive", () => {
  it("is Debian's chromium at /usr/bin/chromium unless BATON_TEST_CHROMIUM names another", () => {
    expect(DEFAULT_CHROMIUM).toBe("/usr/bin/chromium");
    expect(chromiumPath({ BATON_TEST_CHROMIUM: process.execPath }), "any executable path is taken as is").toBe(
      process.execPath,
    );
  });

  it("fails with one sentence saying what to install when the default chromium is missing", () => {
    expect(() => chromiumPath({}, "/nonexistent/usr/bin/chromium")).toThrow(
      "The UI browser tests need Debian's chromium at /nonexistent/usr/bin/chromium (apt-get install chromium), or another chromium binary named by BATON_TEST_CHROMIUM.",
    );
  });

  it("names a BATON_TEST_CHROMIUM that does not exist instead of silently falling back to the default", () => {
    expect(() => chromiumPath({ BATON_TEST_CHROMIUM: "/nonexistent/chromium" })).toThrow(
      "The UI browser tests need a chromium binary, and BATON_TEST_CHROMIUM names /nonexistent/chromium, which does not exist or is not executable (unset it to use Debian's chromium at /usr/bin/chromium: apt-get install chromium).",
    );
  });
});
