import { execFileSync } from "node:child_process";
import { createServer, type Server } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { ACCEPT_FIRST_MAX_TURNS, acceptFirst, connectionAccepted } from "./event-loop.js";

let server: Server | undefined;
afterEach(async () => {
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  server = undefined;
});

/** A listening server that counts (and drops) the connections it accepts, as server.ts hooks `connectionAccepted`. */
async function countingServer(): Promise<{ port: number; accepted: () => number }> {
  let accepted = 0;
  server = createServer((socket) => {
    accepted++;
    socket.destroy();
  });
  server.on("connection", connectionAccepted);
  await new Promise<void>((resolve) => server!.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  if (address === null || typeof address === "string") throw new Error("no port");
  return { port: address.port, accepted: () => accepted };
}

/**
 * Opens `n` connections from another process while this one's event loop is blocked: the
 * kernel completes them all, so all `n` wait in the accept queue when the loop runs again.
 */
function queueConnections(port: number, n: number): void {
  const script = `const net = require("node:net"); let open = 0;
    for (let i = 0; i < ${n}; i++) { const s = net.connect(${port}, "127.0.0.1", () => { if (++open === ${n}) process.exit(0); }); s.on("error", (e) => { console.error(e); process.exit(1); }); }`;
  execFileSync(process.execPath, ["-e", script], { stdio: "inherit" });
}

describe("acceptFirst", () => {
  it("goes on only once the connections waiting to be accepted are accepted", async () => {
    const { port, accepted } = await countingServer();
    queueConnections(port, 30);
    await acceptFirst();
    // Node accepts one connection per turn of the event loop: a plain next turn
    // (setImmediate) would have seen one of the thirty.
    expect(accepted()).toBe(30);
  });

  it("goes on in the next turn when no connection is waiting", async () => {
    const order: string[] = [];
    setImmediate(() => order.push("next turn"));
    await acceptFirst();
    order.push("acceptFirst");
    expect(order).toEqual(["next turn", "acceptFirst"]);
  });

  it("gives new connections at most ACCEPT_FIRST_MAX_TURNS turns in a row", async () => {
    // A connection accepted in every turn, as under a flood of new connections.
    let turns = 0;
    let flooding = true;
    const flood = () => {
      if (!flooding) return;
      turns++;
      connectionAccepted();
      setImmediate(flood);
    };
    connectionAccepted();
    setImmediate(flood);
    await acceptFirst(5);
    const after = turns;
    flooding = false;
    expect(after).toBeGreaterThanOrEqual(4);
    expect(after).toBeLessThanOrEqual(6);
    expect(ACCEPT_FIRST_MAX_TURNS).toBeGreaterThan(40);
  });
});
