import { expect } from "vitest";
import { Refusal } from "../../src/refusal.js";

/** The Refusal `run` rejects with; fails the test when it settles otherwise. */
export async function refusal(run: Promise<unknown>): Promise<Refusal> {
  const error = await run.then(
    () => undefined,
    (e) => e,
  );
  expect(error).toBeInstanceOf(Refusal);
  return error as Refusal;
}
