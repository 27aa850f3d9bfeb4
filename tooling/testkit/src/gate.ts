import type { ServerResponse } from "node:http";
import { until } from "./poll.js";
import { json } from "./upstream.js";

/**
 * Upstream calls that park until the test lets them go, so a test can act (pause, cancel,
 * upgrade, lose a lease) while a `fetch` task is in flight. Use it inside an upstream handler:
 * `if (req.path === "/hold") return gate.hold(res, { held: true });`.
 */
export interface Gate {
  /**
   * Parks the call; it is answered `status` with `body` as JSON when released. Resolves then.
   * A call never released is never answered: the worker that made it "dies" inside it.
   */
  hold(res: ServerResponse, body?: unknown, status?: number): Promise<void>;
  /** How many calls are parked now. */
  readonly parked: number;
  /** Answers the oldest parked call; throws when none is parked (the test lost track). */
  releaseOne(): void;
  /** Answers every parked call. */
  releaseAll(): void;
  /** Resolves once at least `count` calls are parked; throws after until's hang guard (poll.ts). */
  whenParked(count?: number): Promise<void>;
}

export function createGate(): Gate {
  const waiting: Array<() => void> = [];
  return {
    hold: (res, body = { held: true }, status = 200) =>
      new Promise<void>((resolve) => {
        waiting.push(() => {
          json(res, status, body);
          resolve();
        });
      }),
    get parked() {
      return waiting.length;
    },
    releaseOne() {
      const next = waiting.shift();
      if (next === undefined) throw new Error("gate: no call is parked");
      next();
    },
    releaseAll() {
      while (waiting.length > 0) waiting.shift()!();
    },
    async whenParked(count = 1) {
      await until(`${count} upstream call(s) to be parked at the gate`, () =>
        waiting.length >= count ? true : undefined,
      );
    },
  };
}
