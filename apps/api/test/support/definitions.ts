// Definitions more than one suite runs, in-process or over HTTP: one copy each, named by what
// the suites rely on.

/**
 * An external task `ask` (result `{n: integer}`) visited again while `n < 2`: each visit is a new
 * arming with its own claim, so a suite can see what happens to the claims of earlier visits.
 */
export const askUntilTwo = (name: string) => ({
  name,
  tasks: [
    {
      id: "ask",
      action: {
        type: "external",
        result_schema: { type: "object", properties: { n: { type: "integer" } }, required: ["n"] },
      },
    },
    { id: "more", switch: [{ case: "outputs.ask.n < 2", goto: "$ask" }, { goto: "end" }] },
  ],
});

/** The result an external task `q` of askOnce declares: `{n: integer}`. */
export const nResult = { type: "object", properties: { n: { type: "integer" } }, required: ["n"] };

/**
 * An external task `q` (result `{n: integer}`, a 1-minute timeout, raising `no`) and the
 * process output `{n}`: the in-process external suites' one-task process. `more` adds to the
 * task (on_error, other raises) and `rest` to the definition (more tasks, input_schema, output).
 */
export const askOnce = (name: string, more: object = {}, rest: object = {}) => ({
  name,
  tasks: [
    {
      id: "q",
      action: { type: "external", timeout: { for: "1m" }, result_schema: nResult },
      raises: { no: null },
      ...more,
    },
  ],
  output: { n: "$: outputs.q.n" },
  ...rest,
});
