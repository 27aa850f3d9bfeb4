// A worker in its own process, for crash and SIGTERM tests. Env: BATON_SERVER, LEASE_MS, MODE
// ("hang": the handler waits for its signal; "answer": it resolves with {by: pid}), GRACE_MS.
// It prints one JSON line per event on stdout.
import { createWorker } from "../../dist/index.js";

const worker = createWorker({
  server: process.env.BATON_SERVER,
  process: process.env.PROCESS,
  leaseMs: Number(process.env.LEASE_MS),
  shutdownGraceMs: Number(process.env.GRACE_MS ?? 0),
  pollMs: 50,
  maxPollMs: 200,
  onEvent: (event) =>
    process.stdout.write(`${JSON.stringify({ type: event.type, token: event.task?.token, reason: event.reason })}\n`),
  handler: (task, { signal }) => {
    process.stdout.write(`${JSON.stringify({ type: "started", token: task.token })}\n`);
    if (process.env.MODE === "answer") return { by: process.pid };
    return new Promise((_, reject) => signal.addEventListener("abort", () => reject(signal.reason)));
  },
});
await worker.run();
process.stdout.write(`${JSON.stringify({ type: "stopped" })}\n`);
