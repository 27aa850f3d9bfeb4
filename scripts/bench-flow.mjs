// `pnpm bench --flow-keys K --flow-rated N` (docs/flow-control.md, docs/performance.md "Flow
// control"): two workloads of flow control on the draining server.
// - keyed: K keys × 10 roots of the drain workload's routing process under a process
//   concurrency of 1 per key (`input.k`), drained like `drain`: its rate beside the unlimited one.
// - rated: N roots whose one fetch has `rate_limit: {limit: R, per: "1s"}` on one key, against an
//   upstream of this process that stamps each call: the calls per second from the first to the
//   last, their ratio to R, and the most calls seen in any 1 s window (a burst over the limit
//   would show there).
import { createServer } from "node:http";

export const FLOW_PER_KEY = 10;

export function flowDefinitions(drainDef, rate, upstreamUrl) {
  return [
    {
      ...drainDef,
      name: "bench_flow_keyed",
      input_schema: { type: "object", properties: { k: { type: "string" } }, required: ["k"] },
      concurrency: { key: "$: input.k", limit: 1 },
    },
    {
      name: "bench_flow_rated",
      tasks: [
        {
          id: "call",
          action: { type: "fetch", method: "post", url: `${upstreamUrl}/rated`, body: {} },
          rate_limit: { key: "partner", limit: rate, per: "1s" },
        },
      ],
    },
  ];
}

/** The rated workload's upstream: answers at once and keeps the arrival time of every call. */
export async function ratedUpstream() {
  const stamps = [];
  const server = createServer((req, res) => {
    stamps.push(Date.now());
    req.resume();
    req.on("end", () => {
      res.writeHead(200, { "content-type": "application/json" });
      res.end("{}");
    });
  });
  await new Promise((r) => server.listen(0, "127.0.0.1", r));
  return { url: `http://127.0.0.1:${server.address().port}`, stamps, close: () => new Promise((r) => server.close(r)) };
}

/** Starts the keyed roots: `keys` keys, FLOW_PER_KEY roots each, interleaved. */
export async function preloadKeyed(call, base, keys, concurrency = 32) {
  const n = keys * FLOW_PER_KEY;
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < n) {
        const i = next++;
        await call(base, "POST", "/api/instances", { process: "bench_flow_keyed", input: { k: `k${i % keys}` } });
      }
    }),
  );
}

/** The calls' rate and the most calls in any window of `perMs` (sliding over the stamps). */
export function rateFigures(stamps, perMs = 1000) {
  const s = [...stamps].sort((a, b) => a - b);
  let most = 0;
  for (let i = 0, j = 0; i < s.length; i++) {
    while (s[i] - s[j] >= perMs) j++;
    most = Math.max(most, i - j + 1);
  }
  const seconds = s.length > 1 ? (s[s.length - 1] - s[0]) / 1000 : 0;
  return { calls: s.length, rate: seconds > 0 ? (s.length - 1) / seconds : 0, mostInWindow: most };
}

export function flowLines(keyed, rated, rate, drainRate) {
  const lines = [];
  if (keyed !== undefined)
    lines.push(
      `flow-keyed ${keyed.rate.toFixed(0).padStart(5)} instances/s  (${keyed.n} roots, ${keyed.n / FLOW_PER_KEY} keys × ${FLOW_PER_KEY} under a per-key limit of 1, in ${keyed.seconds.toFixed(2)} s) ` +
        `vs the unlimited drain ${drainRate === undefined ? "—" : drainRate.toFixed(0)} instances/s; start→completed p50 ${keyed.p50} ms, p99 ${keyed.p99} ms` +
        (keyed.notCompleted ? `, NOT COMPLETED ${keyed.notCompleted}` : ""),
    );
  if (rated !== undefined)
    lines.push(
      `flow-rated ${rated.figures.rate.toFixed(1).padStart(5)} calls/s  (${rated.figures.calls} calls of ${rated.n} roots under rate_limit ${rate}/1s: ${((rated.figures.rate / rate) * 100).toFixed(1)} % of the limit; ` +
        `most calls in any 1 s window ${rated.figures.mostInWindow})` +
        (rated.notCompleted ? `, NOT COMPLETED ${rated.notCompleted}` : ""),
    );
  return lines;
}
