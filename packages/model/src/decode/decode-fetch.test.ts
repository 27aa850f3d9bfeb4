// biome-ignore-all lint/suspicious/noTemplateCurlyInString: "${ }" is the definition language's interpolation, not a mistaken JS template
import { describe, expect, it } from "vitest";
import { decoded, expectProblem, fetchDef, problemsOf } from "../../test/helpers.js";

const action = (a: Record<string, unknown>, def: Record<string, unknown> = {}) =>
  decoded(fetchDef(a, {}, def)).tasks[0].action;
const problems = (a: Record<string, unknown>, task: Record<string, unknown> = {}) => problemsOf(fetchDef(a, task));
const AT = "tasks[0].action";

describe("fetch", () => {
  it("defaults the method to post", () => {
    expect(action({})).toEqual({ type: "fetch", url: "https://example.com/x", method: "post" });
  });

  it.each(["GET", "get", "Put", "PATCH", "delete", "HEAD", "options"])(
    "accepts method %s in any case, stored lower case",
    (m) => {
      expect(action({ method: m })).toMatchObject({ method: m.toLowerCase() });
    },
  );

  it("refuses unknown methods", () => {
    expectProblem(problems({ method: "FETCH" }), `${AT}.method`, 'unknown HTTP method "FETCH"');
    expectProblem(problems({ method: 1 }), `${AT}.method`, "expected an HTTP method, got a number");
  });

  it("requires a url", () => {
    expectProblem(
      problemsOf({ name: "p", tasks: [{ id: "a", action: { type: "fetch" } }] }),
      AT.replace("[0]", "[0]"),
      "fetch needs a url",
    );
  });

  it("accepts http and https literal URLs and templates", () => {
    action({ url: "http://localhost:8080/x" });
    action(
      { url: "https://api.example.com/orders/${input.id}" },
      { input_schema: { type: "object", properties: { id: { type: "string" } }, required: ["id"] } },
    );
    action(
      { url: "$: 'https://x/' + input.id" },
      { input_schema: { type: "object", properties: { id: { type: "string" } }, required: ["id"] } },
    );
  });

  it("refuses other schemes and relative URLs", () => {
    expectProblem(
      problems({ url: "ftp://example.com/x" }),
      `${AT}.url`,
      'only http and https URLs are allowed, got "ftp"',
    );
    expectProblem(problems({ url: "file:///etc/passwd" }), `${AT}.url`, "only http and https");
    expectProblem(problems({ url: "/relative" }), `${AT}.url`, "not an absolute URL");
  });

  it("checks the scheme of a template's literal prefix", () => {
    expectProblem(
      problemsOf(
        fetchDef(
          { url: "ftp://x/${input.id}" },
          {},
          { input_schema: { type: "object", properties: { id: { type: "string" } }, required: ["id"] } },
        ),
      ),
      `${AT}.url`,
      'got "ftp"',
    );
  });

  it("keeps headers and refuses bad names, reserved and duplicate ones", () => {
    expect(action({ headers: { Authorization: "Bearer x", "X-Count": 3 } })).toMatchObject({
      headers: { Authorization: "Bearer x", "X-Count": 3 },
    });
    expectProblem(
      problems({ headers: { "bad header": "x" } }),
      `${AT}.headers["bad header"]`,
      "not a valid HTTP header name",
    );
    expectProblem(problems({ headers: { "X-Baton-Task-Id": "x" } }), `${AT}.headers["X-Baton-Task-Id"]`, "reserved");
    expectProblem(problems({ headers: { accept: "a", Accept: "b" } }), `${AT}.headers.Accept`, "given twice");
    expectProblem(problems({ headers: { A: { x: 1 } } }), `${AT}.headers.A`, "got an object");
    expectProblem(problems({ headers: [] }), `${AT}.headers`, "got an array");
  });

  it("accepts query values that are scalars, null or arrays of scalars", () => {
    expect(action({ query: { a: "x", b: 1, c: true, d: null, e: ["x", 2] } })).toMatchObject({
      query: { a: "x", b: 1, c: true, d: null, e: ["x", 2] },
    });
    expectProblem(problems({ query: { a: { b: 1 } } }), `${AT}.query.a`, "expected a string, number, boolean, null");
    expectProblem(
      problems({ query: { a: [null] } }),
      `${AT}.query.a[0]`,
      "expected a string, number or boolean, got null",
    );
  });

  it("keeps a body and refuses one on GET and HEAD", () => {
    expect(action({ body: { a: [1, "x"] } })).toMatchObject({ body: { a: [1, "x"] } });
    expectProblem(problems({ method: "GET", body: {} }), `${AT}.body`, "never sent with GET");
    expectProblem(problems({ method: "head", body: "x" }), `${AT}.body`, "never sent with HEAD");
  });

  it("takes result_schema or responses, not both", () => {
    expect(action({ result_schema: { type: "object" } })).toMatchObject({ result_schema: { type: "object" } });
    expect(action({ responses: { "200": { type: "object" }, "404": null, "5xx": {} } })).toMatchObject({
      responses: { "200": { type: "object" }, "404": null, "5xx": {} },
    });
    expectProblem(
      problems({ result_schema: {}, responses: { "200": {} } }),
      AT,
      "either result_schema or responses, not both",
    );
  });

  it("checks responses keys and schemas", () => {
    expectProblem(problems({ responses: { "200x": {} } }), `${AT}.responses["200x"]`, "not a status");
    expectProblem(
      problems({ responses: { "200": { pattern: "x" } } }),
      `${AT}.responses["200"]`,
      'unknown field "pattern"',
    );
    expectProblem(problems({ responses: {} }), `${AT}.responses`, "at least one status");
    expectProblem(
      problems({ result_schema: { type: "string", format: "date" } }),
      `${AT}.result_schema`,
      'unknown field "format"',
    );
  });

  it("takes accepted_status as integers 100–599, sorted", () => {
    expect(action({ accepted_status: [404, 200] })).toMatchObject({ accepted_status: [200, 404] });
    expectProblem(problems({ accepted_status: [99] }), `${AT}.accepted_status[0]`, "between 100 and 599, got 99");
    expectProblem(problems({ accepted_status: [600] }), `${AT}.accepted_status[0]`, "got 600");
    expectProblem(problems({ accepted_status: [200.5] }), `${AT}.accepted_status[0]`, "integer");
    expectProblem(problems({ accepted_status: ["200"] }), `${AT}.accepted_status[0]`, "got a string");
    expectProblem(problems({ accepted_status: [] }), `${AT}.accepted_status`, "non-empty array");
    expectProblem(problems({ accepted_status: [200, 200] }), `${AT}.accepted_status[1]`, "listed twice");
  });

  it("refuses unknown action fields", () => {
    expectProblem(problems({ methd: "get" }), AT, 'unknown field "methd" (did you mean "method"?)');
  });
});

describe("action type", () => {
  it("refuses an unknown or missing type", () => {
    expectProblem(
      problemsOf({ name: "p", tasks: [{ id: "a", action: { type: "http" } }] }),
      `${AT}.type`,
      'unknown action type "http"',
    );
    expectProblem(problemsOf({ name: "p", tasks: [{ id: "a", action: {} }] }), AT, "needs a type");
    expectProblem(problemsOf({ name: "p", tasks: [{ id: "a", action: "fetch" }] }), AT, "expected an action object");
  });
});
