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
