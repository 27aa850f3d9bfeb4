// One /healthz poller for the suites that assert the service stays responsive while a hostile
// case runs (docs/limits.md#fuzzing). No timing assertion: a probe fails only when it gets no 200
// within PROBE_TIMEOUT_MS, which a frozen event loop never answers and a loaded one always does.

/** How long one probe waits for its answer: generous, as POLL_TIMEOUT_MS (poll.ts) is. */
export const PROBE_TIMEOUT_MS = 10_000;

export interface HealthPoll {
  /** The probes so far that did not answer 200 in time: `status 503`, or the error. */
  failures: string[];
  /** Stops probing, waits for the probe in flight, and answers how many answered 200 and which failed. */
  stop(): Promise<{ answered: number; failures: string[] }>;
}

/** Probes `${url}/healthz` until stopped, `everyMs` apart (0: back to back). */
export function pollHealth(url: string, everyMs = 0): HealthPoll {
  const failures: string[] = [];
  let answered = 0;
  let stopped = false;
  const probing = (async () => {
    while (!stopped) {
      try {
        const res = await fetch(new URL("/healthz", url), { signal: AbortSignal.timeout(PROBE_TIMEOUT_MS) });
        await res.arrayBuffer();
        if (res.status === 200) answered++;
        else failures.push(`status ${res.status}`);
      } catch (error) {
        failures.push(String(error));
      }
      if (everyMs > 0 && !stopped) await new Promise((resolve) => setTimeout(resolve, everyMs));
    }
  })();
  return {
    failures,
    stop: async () => {
      stopped = true;
      await probing;
      return { answered, failures };
    },
  };
}
