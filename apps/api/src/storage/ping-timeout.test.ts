import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { connect, type Socket } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { withTimeout } from "./db.js";

// The ping's timeout (docs/deploy.md "Probes"): a loop blocked past the timeout while the answer
// arrives must read the answer, not report the database gone. The answering side is another
// process, as the database is, so it replies while this loop is blocked.

const ECHO = `require("node:net").createServer((s) => s.on("data", () => s.write("pong"))).listen(0, "127.0.0.1", function () { console.log(this.address().port); });`;
let echo: ChildProcess;
let socket: Socket;
beforeAll(async () => {
  echo = spawn(process.execPath, ["-e", ECHO], { stdio: ["ignore", "pipe", "inherit"] });
  const [line] = await once(echo.stdout!, "data");
  socket = connect(Number(String(line).trim()), "127.0.0.1");
  await once(socket, "connect");
});
afterAll(() => {
  socket?.destroy();
  echo?.kill();
});

/** A round trip like a ping's `select 1`: resolves when the answer is read. */
async function roundTrip(): Promise<string> {
  socket.write("ping");
  const [data] = await once(socket, "data");
  return String(data);
}

function blockLoop(ms: number): void {
  const end = Date.now() + ms;
  while (Date.now() < end) {}
}

describe("withTimeout", () => {
  it("answers with a reply that arrived while the loop was blocked past the timeout", async () => {
    const pinged = withTimeout(roundTrip(), 20, "no answer");
    // The request has left (write is synchronous on a connected socket); the answer lands in the
    // socket while the loop is busy until long after the timer is due.
    blockLoop(300);
    await expect(pinged).resolves.toBe("pong");
  });

  it("times out, naming the wait, when no answer comes", async () => {
    const never = new Promise<string>(() => {});
    await expect(withTimeout(never, 20, "the database did not answer the ping")).rejects.toMatchObject({
      message: "the database did not answer the ping",
      code: "CONNECT_TIMEOUT",
    });
  });
});
