import { LosslessNumber } from "@baton/expr";
import { json, startUpstream, type Upstream } from "@baton/testkit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Harness, openHarness } from "../support/engine-harness.js";

let h: Harness;
let up: Upstream;

beforeAll(async () => {
  h = await openHarness();
  up = await startUpstream();
});
afterAll(async () => {
  await up?.close();
  await h?.close();
});

describe("routing-only processes", () => {
  it("runs routing tasks inline to completion in one tick and evaluates the process output", async () => {
    const id = await h.deployAndStart(
      {
        name: "route",
        input_schema: { type: "object", properties: { n: { type: "integer" } } },
        tasks: [
          { id: "a", output: { doubled: "$: input.n * 2" } },
          { id: "b", output: "$: outputs.a.doubled + 1" },
        ],
        output: { result: "$: outputs.b" },
      },
      { n: 20 },
    );
    expect(await h.tick()).toBe(1);
    const view = await h.get(id);
    expect(view.status).toBe("completed");
    expect(view.output).toEqual({ result: 41 });
    expect(view.task, "task stays on the last task run").toBe("b");
    expect(view.taskEpoch, "one entry per task").toBe(2);
    expect(view.leaseOwner).toBeNull();
    const events = (await h.logs(id)).map((l) => l.event);
    expect(events).toEqual(["task.completed", "task.completed", "instance.completed"]);
  });

  it("follows switch cases, end and $id, and fails with engine.definition when no case matches", async () => {
    await h.deploy({
      name: "branch",
      input_schema: { type: "object", properties: { kind: { type: "string" } } },
      tasks: [
        {
          id: "pick",
          switch: [
            { case: "input.kind == 'a'", goto: "$a" },
            { case: "input.kind == 'b'", goto: "$b" },
          ],
        },
        { id: "a", output: "'went a'", switch: "end" },
        { id: "b", output: "'went b'" },
      ],
    });
    const a = await h.start("branch", { kind: "a" });
    const b = await h.start("branch", { kind: "b" });
    const none = await h.start("branch", { kind: "z" });
    await h.tick();
    expect((await h.get(a)).state.outputs).toEqual({ a: "'went a'" });
    expect((await h.get(a)).status).toBe("completed");
    expect((await h.get(b)).state.outputs).toEqual({ b: "'went b'" });
    const failed = await h.get(none);
    expect(failed.status).toBe("failed");
    expect(failed.errorCode).toBe("engine.definition");
    expect(failed.errorMessage).toContain('task "pick"');
  });

  it("ends raised with the authored code and message on a switch raise, failed on a panic", async () => {
    await h.deploy({
      name: "raiser",
      input_schema: { type: "object", properties: { bad: { type: "boolean" } }, required: ["bad"] },
      tasks: [
        {
          id: "check",
          switch: [
            { case: "input.bad", raise: { code: "bad_input", message: "the input was bad" } },
            { panic: { code: "broken", message: "never fine" } },
          ],
        },
      ],
    });
    const raised = await h.start("raiser", { bad: true });
    const panicked = await h.start("raiser", { bad: false });
    await h.tick();
    expect(await h.get(raised)).toMatchObject({
      status: "raised",
      errorCode: "bad_input",
      errorMessage: "the input was bad",
    });
    expect(await h.get(panicked)).toMatchObject({ status: "failed", errorCode: "broken", errorMessage: "never fine" });
  });

  it("fails with engine.expression when an expression faults at run time", async () => {
    const id = await h.deployAndStart(
      {
        name: "divzero",
        input_schema: { type: "object", properties: { n: { type: "integer" } } },
        tasks: [{ id: "div", output: "$: 1 / input.n" }],
      },
      { n: 0 },
    );
    await h.tick();
    const view = await h.get(id);
    expect(view.status).toBe("failed");
    expect(view.errorCode).toBe("engine.expression");
    expect(view.errorMessage).toMatch(/^task "div": engine\.expression: /);
  });

  it("offers self.previous on a revisit of a looping task", async () => {
    const id = await h.deployAndStart({
      name: "loop",
      tasks: [
        {
          id: "count",
          output: "$: (self.previous ?? 0) + 1",
          switch: [{ case: "self.output < 3", goto: "$count" }, { goto: "end" }],
        },
      ],
      output: "$: outputs.count",
    });
    await h.tick();
    const view = await h.get(id);
    expect(view.status).toBe("completed");
    expect(view.output).toBe(3);
    expect(view.taskEpoch, "every visit is a task entry").toBe(3);
  });
});

describe("fetch tasks", () => {
  it("sends templated url, query, headers and JSON body with the X-Baton and Idempotency-Key headers, checkpointing after each action", async () => {
    up.handle((req, res) => json(res, 200, { path: req.path, got: req.body ? JSON.parse(req.body) : null }));
    await h.deploy({
      name: "caller",
      input_schema: {
        type: "object",
        properties: { who: { type: "string" }, big: { type: "integer" } },
        required: ["who", "big"],
      },
      tasks: [
        {
          id: "hello",
          action: {
            type: "fetch",
            method: "put",
            url: `${up.url}/hello/\${input.who}`,
            query: { tag: ["x", "y"], none: null, n: 5 },
            headers: { "x-custom": "$: input.who" },
            body: { name: "$: input.who", big: "$: input.big" },
            result_schema: {
              type: "object",
              properties: {
                path: { type: "string" },
                got: { type: ["object", "null"], properties: { name: { type: "string" }, big: { type: "integer" } } },
              },
              required: ["path", "got"],
            },
          },
          output: { echoed: "$: self.result.got.name", status: "$: self.status" },
        },
        { id: "after", action: { type: "fetch", method: "get", url: `${up.url}/after` } },
      ],
    });
    const before = up.requests.length;
    const id = await h.start("caller", { who: "ada", big: new LosslessNumber("12345678901234567890") });
    expect(await h.tick()).toBe(1);
    let view = await h.get(id);
    expect(view.status).toBe("running");
    expect(view.task, "checkpointed after the first action task").toBe("after");
    expect(view.state.outputs.hello).toEqual({ echoed: "ada", status: 200 });
    const first = up.requests[before];
    expect(first.method).toBe("PUT");
    expect(first.path, "null omitted, arrays repeat the key").toBe("/hello/ada?n=5&tag=x&tag=y");
    expect(first.headers["x-custom"]).toBe("ada");
    expect(first.headers["x-baton-instance-id"]).toBe(id);
    expect(first.headers["x-baton-task-id"]).toBe("hello");
    expect(first.headers["idempotency-key"]).toBe(`${id}:1`);
    expect(first.body, "big integers go out exactly").toBe('{"big":12345678901234567890,"name":"ada"}');
    await h.tick();
    view = await h.get(id);
    expect(view.status).toBe("completed");
    const second = up.requests[before + 1];
    expect(second.method).toBe("GET");
    expect(second.body).toBe("");
    expect(second.headers["idempotency-key"]).toBe(`${id}:2`);
    expect(view.state.outputs.after, "without an output shape the task exports its result").toEqual({
      path: "/after",
      got: null,
    });
  });

  it("classifies responses: http.<status>, output.parse, output.invalid, empty body as null", async () => {
    const def = (name: string, path: string, extra: object = {}) => ({
      name,
      tasks: [{ id: "call", action: { type: "fetch", method: "get", url: `${up.url}${path}`, ...extra } }],
    });
    up.handle((req, res) => {
      if (req.path === "/503") return json(res, 503, { error: "down for maintenance" });
      if (req.path === "/text") {
        res.writeHead(200, { "content-type": "text/plain" });
        res.end("hello there");
        return;
      }
      if (req.path === "/empty") {
        res.writeHead(204);
        res.end();
        return;
      }
      if (req.path === "/created") return json(res, 201, { id: 7 });
      return json(res, 200, { id: "not-a-number" });
    });
    await h.deploy(def("s503", "/503"));
    await h.deploy(def("stext", "/text"));
    await h.deploy(def("sempty", "/empty"));
    await h.deploy(
      def("sinvalid", "/invalid", {
        result_schema: { type: "object", properties: { id: { type: "integer" } }, required: ["id"] },
      }),
    );
    await h.deploy(def("snotaccepted", "/created", { accepted_status: [200] }));
    const ids = {
      s503: await h.start("s503"),
      stext: await h.start("stext"),
      sempty: await h.start("sempty"),
      sinvalid: await h.start("sinvalid"),
      snotaccepted: await h.start("snotaccepted"),
    };
    await h.tick();
    const s503 = await h.get(ids.s503);
    expect(s503.errorCode).toBe("http.503");
    expect(s503.errorMessage).toContain("down for maintenance");
    expect(s503.errorMessage).toMatch(/^task "call": http\.503: /);
    expect((await h.get(ids.stext)).errorCode).toBe("output.parse");
    const empty = await h.get(ids.sempty);
    expect(empty.status).toBe("completed");
    expect(empty.state.outputs.call).toBeNull();
    const invalid = await h.get(ids.sinvalid);
    expect(invalid.errorCode).toBe("output.invalid");
    expect(invalid.errorMessage).toContain("id");
    expect((await h.get(ids.snotaccepted)).errorCode).toBe("http.201");
  });

  it("classifies transport failures: refused connection and bad scheme are pre.error, a slow upstream http.timeout", async () => {
    up.handle(() => {
      /* never answers */
    });
    await h.deploy({
      name: "refused",
      tasks: [{ id: "call", action: { type: "fetch", url: "http://127.0.0.1:1/x" } }],
    });
    await h.deploy({
      name: "scheme",
      input_schema: { type: "object", properties: { url: { type: "string" } }, required: ["url"] },
      tasks: [{ id: "call", action: { type: "fetch", url: "$: input.url" } }],
    });
    await h.deploy({
      name: "slow",
      tasks: [{ id: "call", action: { type: "fetch", url: `${up.url}/slow`, timeout: { for: "300ms" } } }],
    });
    const refused = await h.start("refused");
    const scheme = await h.start("scheme", { url: "ftp://example.com/x" });
    const slow = await h.start("slow");
    await h.tick();
    expect((await h.get(refused)).errorCode).toBe("pre.error");
    expect((await h.get(scheme)).errorCode).toBe("pre.error");
    expect((await h.get(scheme)).errorMessage).toContain("only http and https");
    expect((await h.get(slow)).errorCode).toBe("http.timeout");
  });

  it("refuses hosts on the deny list with pre.error naming the flag", async () => {
    const engine = h.newEngine("deny-worker", { fetchDenyHosts: ["127.0.0.1"] });
    const id = await h.deployAndStart({
      name: "denied",
      tasks: [{ id: "call", action: { type: "fetch", url: `${up.url}/x` } }],
    });
    const before = up.requests.length;
    await engine.tick();
    const view = await h.get(id);
    expect(view.errorCode).toBe("pre.error");
    expect(view.errorMessage).toContain("--fetch-deny");
    expect(up.requests.length, "the call never left").toBe(before);
  });
});
