import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Harness, openHarness } from "../../../test/support/engine-harness.js";
import { bufferSignal, peekSignal } from "./signal-buffer.js";

let h: Harness;

beforeAll(async () => {
  h = await openHarness();
});
afterAll(async () => {
  await h?.close();
});

describe("signal buffer", () => {
  it("peeks the oldest outcome of one (instance, task) without consuming it", async () => {
    await bufferSignal(h.db, "i-1", "ask", { result: { n: 1 } }, "ops", h.clock.now());
    await bufferSignal(h.db, "i-1", "other", { result: { n: 9 } }, null, h.clock.now());
    await bufferSignal(h.db, "i-1", "ask", { error: { code: "no" } }, null, h.clock.now());
    const first = await peekSignal(h.db, "i-1", "ask");
    expect(first?.outcome).toEqual({ result: { n: 1 } });
    expect((await peekSignal(h.db, "i-1", "ask"))?.seq, "peeking does not consume").toBe(first?.seq);
    expect(await peekSignal(h.db, "i-2", "ask")).toBeUndefined();
  });
});
