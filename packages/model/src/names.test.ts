import { describe, expect, it } from "vitest";
import { AUTHORED_CODE, authoredCodeProblem, CODE_PATTERN, PROCESS_NAME, TASK_ID } from "./names.js";

describe("name patterns", () => {
  it("match the rules of docs/language.md", () => {
    expect(PROCESS_NAME.test("orders.v2-eu_1")).toBe(true);
    expect(PROCESS_NAME.test("Orders")).toBe(false);
    expect(TASK_ID.test("charge-card")).toBe(true);
    expect(TASK_ID.test("9lives")).toBe(false);
    expect(AUTHORED_CODE.test("card_declined")).toBe(true);
    expect(AUTHORED_CODE.test("card.declined")).toBe(false);
    expect(CODE_PATTERN.test("http.5%")).toBe(true);
    expect(CODE_PATTERN.test("HTTP.500")).toBe(false);
  });
});

describe("authoredCodeProblem", () => {
  it("explains that dots are reserved for engine codes", () => {
    expect(authoredCodeProblem("card_declined")).toBeUndefined();
    expect(authoredCodeProblem("card.declined")).toMatch(/reserved for engine codes/);
    expect(authoredCodeProblem("CardDeclined")).toMatch(/lower_snake_case/);
  });
});
