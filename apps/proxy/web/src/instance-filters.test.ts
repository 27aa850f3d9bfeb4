import { describe, expect, it } from "vitest";
import {
  EMPTY_FILTERS,
  filterProblems,
  filtersFromSearch,
  filtersToQuery,
  filtersToSearch,
  localInputToMs,
  msToLocalInput,
} from "./instance-filters.js";

describe("instance filters in the URL", () => {
  it("leaves the default view without a query", () => {
    expect(filtersToSearch(EMPTY_FILTERS)).toBe("");
    expect(filtersFromSearch("")).toEqual(EMPTY_FILTERS);
  });

  it("round-trips every filter through the query string", () => {
    const filters = {
      ...EMPTY_FILTERS,
      status: ["failed", "raised"],
      process: "order",
      version: "2",
      phase: "external",
      task: "approve",
      error_code: "http.503",
      children: true,
      created_after: "1700000000000",
      updated_before: "1800000000000",
    };
    const search = filtersToSearch(filters);
    expect(search).toContain("status=failed%2Craised");
    expect(filtersFromSearch(search)).toEqual(filters);
  });

  it("ignores unknown keys and trims values", () => {
    expect(filtersFromSearch("foo=1&process=%20order%20")).toEqual({ ...EMPTY_FILTERS, process: "order" });
  });
});

describe("filtersToQuery", () => {
  it("sends the API's types: numbers for version and times, a comma list for status", () => {
    const query = filtersToQuery({
      ...EMPTY_FILTERS,
      status: ["running", "paused"],
      version: "0",
      children: true,
      created_before: "42",
    });
    expect(query).toEqual({ status: "running,paused", version: 0, children: true, created_before: 42 });
  });

  it("sends nothing for empty filters (roots only, every status)", () => {
    expect(filtersToQuery(EMPTY_FILTERS)).toEqual({});
  });
});

describe("filterProblems", () => {
  it("accepts the empty filters", () => {
    expect(filterProblems(EMPTY_FILTERS)).toEqual([]);
  });

  it("names each bad value and what was expected", () => {
    const problems = filterProblems({
      ...EMPTY_FILTERS,
      status: ["done"],
      phase: "waiting",
      version: "v2",
      created_after: "yesterday",
    });
    expect(problems).toHaveLength(4);
    expect(problems[0]).toMatch(/status "done" is not one of running/);
    expect(problems[1]).toMatch(/phase "waiting"/);
    expect(problems[2]).toMatch(/version "v2"/);
    expect(problems[3]).toMatch(/created after "yesterday"/);
  });

  it("takes a code ending in one % or * as a prefix, and refuses a wildcard elsewhere", () => {
    expect(filtersToQuery({ ...EMPTY_FILTERS, error_code: "http.5%" })).toEqual({ error_code_prefix: "http.5" });
    expect(filtersToQuery({ ...EMPTY_FILTERS, error_code: "out_of*" })).toEqual({ error_code_prefix: "out_of" });
    expect(filtersToQuery({ ...EMPTY_FILTERS, error_code: "http.503" })).toEqual({ error_code: "http.503" });
    expect(filterProblems({ ...EMPTY_FILTERS, error_code: "http.5%" })).toEqual([]);
    expect(filterProblems({ ...EMPTY_FILTERS, error_code: "http.%3" })[0]).toMatch(/wildcard that is not at its end/);
    expect(filterProblems({ ...EMPTY_FILTERS, error_code: "%" })).toHaveLength(1);
  });

  it("requires a process with a task, as the API does", () => {
    expect(filterProblems({ ...EMPTY_FILTERS, task: "approve" })).toEqual([
      "the task filter needs a process: task ids are unique only within a definition",
    ]);
    expect(filterProblems({ ...EMPTY_FILTERS, task: "approve", process: "order" })).toEqual([]);
  });
});

describe("datetime-local conversion", () => {
  it("round-trips minutes in the local time zone", () => {
    const ms = String(new Date(2026, 10, 22, 9, 30).getTime());
    expect(msToLocalInput(ms)).toBe("2026-11-22T09:30");
    expect(localInputToMs("2026-11-22T09:30")).toBe(ms);
  });

  it("gives empty values for empty or invalid input", () => {
    expect(msToLocalInput("")).toBe("");
    expect(localInputToMs("")).toBe("");
    expect(localInputToMs("garbage")).toBe("");
  });
});
