// --limit-fetch-response-bytes (docs/limits.md "Instance data"): a fetch response body past the
// flag fails the attempt with output.too_large naming the flag, and one at it is read whole.
import { client, settled, startServer, startUpstream, type TestServer, type Upstream } from "@baton/testkit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { deployAndStart } from "../../support/instances-fixtures.js";

let server: TestServer;
let upstream: Upstream;
let api: ReturnType<typeof client>;

beforeAll(async () => {
  upstream = await startUpstream((req, res) => {
    const size = Number(new URL(req.path, "http://up").searchParams.get("size"));
    res.writeHead(200, { "content-type": "application/json" });
    // A JSON string of exactly `size` bytes.
    res.end(JSON.stringify("x".repeat(size - 2)));
  });
  server = await startServer({ args: ["--poll", "50", "--limit-fetch-response-bytes", "2048"] });
  api = client(server.url);
}, 60_000);

afterAll(async () => {
  await server?.stop();
  await upstream?.close();
});

const fetching = (name: string, size: number) => ({
  name,
  tasks: [{ id: "call", action: { type: "fetch", method: "get", url: `${upstream.url}/body?size=${size}` } }],
  output: "$: len(outputs.call)",
});

describe("--limit-fetch-response-bytes", () => {
  it("reads a response body of exactly the limit", async () => {
    const done = await settled(api, await deployAndStart(api, fetching("at_limit", 2048)));
    expect(done.status, JSON.stringify(done)).toBe("completed");
    expect(done.output).toBe(2046);
  });

  it("fails a response body one byte past the limit with output.too_large naming the flag", async () => {
    const done = await settled(api, await deployAndStart(api, fetching("past_limit", 2049)));
    expect(done.status).toBe("failed");
    expect(done.error_code).toBe("output.too_large");
    expect(done.error_message).toBe(
      `task "call": output.too_large: response from ${upstream.url}/body exceeds 2048 bytes (--limit-fetch-response-bytes)`,
    );
  });
});
