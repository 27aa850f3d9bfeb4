// Deeply nested request bodies (docs/limits.md "Requests", --limit-body-depth): refused with a
// 400 naming the depth, the flag and where, by one pass over the text before any parser runs, so
// concurrent deep bodies within --max-body never hold the event loop; bodies within the bound,
// exact numbers and repeated keys included, parse as before.
import { client, request, startServer, type TestServer } from "@baton/testkit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { deploy } from "../../support/instances-fixtures.js";

let server: TestServer;
let api: ReturnType<typeof client>;

beforeAll(async () => {
  server = await startServer({ args: ["--poll", "0"] });
  api = client(server.url);
  await deploy(api, {
    name: "deep",
    input_schema: { type: "object", properties: { a: {}, big: { type: "integer" } } },
    tasks: [{ id: "wait", action: { type: "external" } }],
  });
}, 120_000);

afterAll(async () => {
  await server?.stop();
});

/** A start body whose input holds `count` copies of a value nested `depth` levels deep. */
function nestedStart(depth: number, bytes: number, open = "[", close = "]"): string {
  const one = `${open.repeat(depth)}1${close.repeat(depth)}`;
  const count = Math.max(1, Math.floor(bytes / (one.length + 1)));
  return `{"process":"deep","input":{"a":[${Array(count).fill(one).join(",")}]}}`;
}

describe("a request body nested past --limit-body-depth", () => {
  it("is refused with 400 naming the depth, the flag and the character, for ten concurrent 238 KB bodies 990 deep", async () => {
    const body = nestedStart(990, 238_000);
    expect(body.length).toBeLessThan(256 * 1024);
    const answers = await Promise.all(
      Array.from({ length: 10 }, () => request(server.url, "POST", "/api/instances", body)),
    );
    for (const res of answers) {
      expect(res.status, res.text).toBe(400);
      expect(res.body.code).toBe("invalid");
      // `{"process":"deep","input":{"a":[` opens three levels; the 161st opens 158 brackets into the value.
      expect(res.body.error).toBe(
        `the request body nests arrays and objects more than 160 levels deep (--limit-body-depth, docs/limits.md): level 161 opens at character ${31 + 158}`,
      );
    }
    expect((await api.get("/livez")).status).toBe(200);
    const list = await api.get("/api/instances?process=deep");
    expect(list.body.items, "nothing was started").toEqual([]);
  });

  it("is refused the same way for nested objects and on other endpoints (a resolve's result)", async () => {
    const objects = nestedStart(400, 20_000, '{"k":', "}");
    const res = await request(server.url, "POST", "/api/instances", objects);
    expect(res.status, res.text).toBe(400);
    expect(res.body.error).toMatch(
      /more than 160 levels deep \(--limit-body-depth, docs\/limits\.md\): level 161 opens at character \d+$/,
    );
    const resolve = await request(
      server.url,
      "POST",
      "/api/external-tasks/resolve",
      `{"token":"t","result":${"[".repeat(200)}${"]".repeat(200)}}`,
    );
    expect(resolve.status, resolve.text).toBe(400);
    expect(resolve.body.error).toContain("--limit-body-depth");
  });

  it("does not count brackets inside strings, and admits a body at exactly the bound", async () => {
    // Two envelope levels plus 158 in the value: 160.
    const atBound = `{"process":"deep","input":{"a":${"[".repeat(158)}"[[[{{{"${"]".repeat(158)}}}`;
    const res = await request(server.url, "POST", "/api/instances", atBound);
    expect(res.status, res.text).toBe(200);
    const detail = await api.get(`/api/instances/${res.body.id}/detail`);
    let value = detail.body.state.input.a;
    for (let i = 0; i < 158; i++) value = value[0];
    expect(value).toBe("[[[{{{");
  });

  it("keeps numbers a float64 cannot hold exact and still refuses a repeated key", async () => {
    const exact = await request(
      server.url,
      "POST",
      "/api/instances",
      `{"process":"deep","input":{"big":123456789012345678901234567890,"a":[${Array(20_000).fill("[1]").join(",")}]}}`,
    );
    expect(exact.status, exact.text).toBe(200);
    const detail = await api.get(`/api/instances/${exact.body.id}/detail?resolve=true`);
    expect(detail.text).toContain('"big":123456789012345678901234567890');
    const repeated = await request(server.url, "POST", "/api/instances", '{"process":"deep","process":"other"}');
    expect(repeated.status, repeated.text).toBe(400);
    expect(repeated.body.error).toMatch(/Duplicate key 'process'/);
  });
});

describe("--limit-body-depth", () => {
  it("is a flag: a lower bound refuses what the default admits", async () => {
    const low = await startServer({ args: ["--poll", "0", "--limit-body-depth", "8"] });
    try {
      const res = await request(
        low.url,
        "POST",
        "/api/instances",
        `{"process":"x","input":${"[".repeat(9)}${"]".repeat(9)}}`,
      );
      expect(res.status, res.text).toBe(400);
      expect(res.body.error).toContain(
        "more than 8 levels deep (--limit-body-depth, docs/limits.md): level 9 opens at character",
      );
    } finally {
      await low.stop();
    }
  });
});
