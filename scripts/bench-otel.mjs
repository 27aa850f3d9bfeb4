// The tracing overhead workload (docs/tracing.md, docs/performance.md "Tracing"): with --otel,
// every server the bench starts exports its spans, sampled at 100 %, to this OTLP/HTTP sink on
// loopback, which counts what it receives and answers 200 as a collector would.
import { createServer } from "node:http";

/** Starts the sink and sets the OTEL_* variables the bench's servers inherit; returns its counts and close. */
export async function startOtlpSink() {
  const counts = { exports: 0, bytes: 0 };
  const server = createServer((req, res) => {
    req.on("data", (chunk) => (counts.bytes += chunk.length));
    req.on("end", () => {
      counts.exports++;
      res.writeHead(200, { "content-type": "application/x-protobuf" });
      res.end();
    });
  });
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  Object.assign(process.env, {
    OTEL_TRACES_EXPORTER: "otlp",
    OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${server.address().port}`,
    OTEL_EXPORTER_OTLP_PROTOCOL: process.env.OTEL_EXPORTER_OTLP_PROTOCOL ?? "http/protobuf",
    OTEL_TRACES_SAMPLER: "always_on",
  });
  return {
    line: () => `otel: ${counts.exports} OTLP exports, ${(counts.bytes / 1e6).toFixed(1)} MB of spans received`,
    close: () => new Promise((resolve) => server.close(resolve)),
  };
}
