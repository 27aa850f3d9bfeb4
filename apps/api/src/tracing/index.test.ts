import { describe, expect, it } from "vitest";
import { instanceTraceparent, traceIdOf, tracing, tracingWanted } from "./index.js";

describe("tracingWanted", () => {
  it("is off without any OTEL_* variable, and nothing is loaded", () => {
    expect(tracingWanted({})).toBe(false);
    expect(tracing()).toBeUndefined();
  });

  it("is on for an OTLP endpoint, or an exporter named otlp or console", () => {
    expect(tracingWanted({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://collector:4318" })).toBe(true);
    expect(tracingWanted({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: "http://collector:4318/v1/traces" })).toBe(true);
    expect(tracingWanted({ OTEL_TRACES_EXPORTER: "otlp" })).toBe(true);
    expect(tracingWanted({ OTEL_TRACES_EXPORTER: "none,console" })).toBe(true);
  });

  it("stays off when OTEL_TRACES_EXPORTER=none or OTEL_SDK_DISABLED=true, whatever the endpoint", () => {
    expect(tracingWanted({ OTEL_TRACES_EXPORTER: "none", OTEL_EXPORTER_OTLP_ENDPOINT: "http://c:4318" })).toBe(false);
    expect(tracingWanted({ OTEL_SDK_DISABLED: "true", OTEL_TRACES_EXPORTER: "otlp" })).toBe(false);
  });
});

describe("instanceTraceparent", () => {
  it("is the stored traceparent when there is one", () => {
    const stored = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";
    expect(instanceTraceparent(stored, "r", "i")).toBe(stored);
  });

  it("derives one trace per tree from the root's id when none was stored", () => {
    const root = "019a3c1e-7c2b-7d10-8f00-4b6e2a9d1c55";
    const child = "019a3c1e-7c2c-7000-8123-456789abcdef";
    const derived = instanceTraceparent(null, root, child);
    expect(derived).toMatch(/^00-[0-9a-f]{32}-[0-9a-f]{16}-01$/);
    expect(traceIdOf(derived)).toBe(root.replaceAll("-", ""));
    expect(traceIdOf(instanceTraceparent(null, root, root))).toBe(traceIdOf(derived));
    expect(derived.slice(36, 52)).toBe("8123456789abcdef");
  });
});
