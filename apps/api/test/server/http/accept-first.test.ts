// New connections first (docs/limits.md "Requests", "New connections first"): a /healthz probe
// that connects behind a burst of maximum-size starts is answered before them. Node accepts one
// connection per turn of the event loop, so without accept-first the probe would wait for every
// start ahead of it to be accepted, each turn also running a start's work. No timing: the server is
// stopped (SIGSTOP) while the starts and then the probe connect, so all of them wait in the
// accept queue in that order when it runs again; the assertion is on the order of the answers.
import http from "node:http";
import { client, startServer, type TestServer } from "@baton/testkit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const STARTS = 30;
let server: TestServer;

beforeAll(async () => {
  server = await startServer({ args: ["--poll", "0"] });
  const put = await client(server.url).put("/api/definitions", {
    name: "wide_input",
    input_schema: { type: "object", properties: { xs: { type: "array", items: { type: "number" } } } },
    tasks: [{ id: "count", output: "$: len(input.xs)" }],
    output: "$: outputs.count",
  });
  expect(put.status, put.text).toBe(200);
});

afterAll(async () => {
  await server?.stop();
});

/** A request on a connection of its own; resolves with the status once answered, and says when it has connected. */
function send(path: string, body?: string): { connected: Promise<void>; answered: Promise<number> } {
  let connected!: () => void;
  const connectedPromise = new Promise<void>((resolve) => (connected = resolve));
  const answered = new Promise<number>((resolve, reject) => {
    const request = http.request(
      `${server.url}${path}`,
      {
        method: body === undefined ? "GET" : "POST",
        agent: false,
        headers:
          body === undefined ? {} : { "content-type": "application/json", "content-length": Buffer.byteLength(body) },
      },
      (response) => {
        response.resume();
        response.on("end", () => resolve(response.statusCode ?? 0));
      },
    );
    request.on("socket", (socket) => socket.on("connect", connected));
    request.on("error", reject);
    request.end(body);
  });
  return { connected: connectedPromise, answered };
}

describe("a /healthz probe queued behind maximum-size starts", () => {
  it("is answered before any of them", async () => {
    const xs = Array.from({ length: 29_900 }, (_, i) => i * 1.5 + 0.25);
    const body = JSON.stringify({ process: "wide_input", input: { xs } });
    expect(body.length).toBeGreaterThan(250_000);
    const order: string[] = [];
    const pid = server.child.pid!;
    process.kill(pid, "SIGSTOP");
    let starts: Array<{ connected: Promise<void>; answered: Promise<number> }>;
    let probe: { connected: Promise<void>; answered: Promise<number> };
    try {
      starts = Array.from({ length: STARTS }, () => send("/api/instances", body));
      await Promise.all(starts.map((s) => s.connected));
      probe = send("/healthz");
      await probe.connected;
    } finally {
      process.kill(pid, "SIGCONT");
    }
    const statuses = await Promise.all([
      probe.answered.then((status) => {
        order.push("probe");
        return status;
      }),
      ...starts.map((s) =>
        s.answered.then((status) => {
          order.push("start");
          return status;
        }),
      ),
    ]);
    expect(statuses).toEqual(Array.from({ length: STARTS + 1 }, () => 200));
    expect(order.indexOf("probe"), `answers in order: ${order.join(" ")}`).toBe(0);
  });
});
