// The instance page's link to the operator's tracing tool (docs/tracing.md "The UI's trace
// link"): the proxy's `trace_url` with the trace id the API puts on every log entry.

import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { mockSession, type Stack, startStack } from "./harness.js";

const TRACE = "4bf92f3577b34da6a3ce929d0e0e4736";
let stack: Stack;

beforeAll(async () => {
  // Tracing on; the spans go to a port nothing listens on (the exporter drops them quietly).
  stack = await startStack([], { OTEL_TRACES_EXPORTER: "otlp", OTEL_EXPORTER_OTLP_ENDPOINT: "http://127.0.0.1:9" });
  await stack.client.call("putDefinition", { body: { name: "traced", tasks: [{ id: "only" }] } });
});

afterAll(async () => {
  await stack?.close();
});

describe("the trace link", () => {
  it("opens the instance's trace in the tool the proxy's trace_url names", async () => {
    const started = await fetch(`${stack.api.url}/api/instances`, {
      method: "POST",
      headers: { "content-type": "application/json", traceparent: `00-${TRACE}-00f067aa0ba902b7-01` },
      body: JSON.stringify({ process: "traced" }),
    });
    const { id } = (await started.json()) as { id: string };
    const page = stack.page;
    await mockSession(page, {
      login: false,
      signed_in: false,
      subject: null,
      permissions: null,
      providers: [],
      password_login: false,
      trace_url: "https://jaeger.example/trace/{trace_id}",
    });
    await page.goto(`${stack.web.url}/#/instances/${id}`);
    const link = page.getByRole("link", { name: "Open the trace" });
    await link.waitFor();
    expect(await link.getAttribute("href")).toBe(`https://jaeger.example/trace/${TRACE}`);
  });

  it("shows no link when the proxy names no tracing tool", async () => {
    const started = await stack.client.call("startInstance", { body: { process: "traced" } });
    const page = await stack.browser.newPage();
    await page.goto(`${stack.web.url}/#/instances/${started.id}`);
    await page.getByRole("heading", { name: "Logs" }).waitFor();
    await page.locator("table.logs tbody tr").first().waitFor();
    expect(await page.getByRole("link", { name: "Open the trace" }).count()).toBe(0);
    await page.close();
  });
});
