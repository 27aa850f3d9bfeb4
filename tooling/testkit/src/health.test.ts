import { expect, it } from "vitest";
import { pollHealth } from "./health.js";
import { until } from "./poll.js";
import { json, startUpstream } from "./upstream.js";

it("counts the probes answered 200, records each other answer, and stops probing when stopped", async () => {
  let probes = 0;
  const up = await startUpstream((req, res) => {
    probes++;
    json(res, req.path === "/healthz" && probes !== 2 ? 200 : 503, {});
  });
  try {
    const poll = pollHealth(up.url);
    await until("three probes", () => (probes >= 3 ? true : undefined));
    expect(poll.failures).toEqual(["status 503"]);
    const { answered, failures } = await poll.stop();
    expect(failures).toEqual(["status 503"]);
    expect(answered).toBe(probes - 1);
    const after = up.requests.length;
    expect(up.requests.every((r) => r.method === "GET" && r.path === "/healthz")).toBe(true);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(up.requests.length, "no probe after stop").toBe(after);
  } finally {
    await up.close();
  }
});

it("records a server that does not answer as a failure", async () => {
  const up = await startUpstream();
  const url = up.url;
  await up.close();
  const { answered, failures } = await pollHealth(url).stop();
  expect(answered).toBe(0);
  expect(failures).toHaveLength(1);
  expect(failures[0]).toMatch(/fetch failed|ECONNREFUSED/);
});
