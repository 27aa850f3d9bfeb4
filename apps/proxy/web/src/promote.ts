// What the promote preview reads beside the pointers (pages/channels.tsx, docs/ui.md "Promote").

import { call } from "./api.js";

/**
 * How many live roots each changed process has on the version the target channel points at
 * now: a promote moves the pointer, not them (they stay until upgraded).
 */
export async function liveOnPrevious(
  changes: readonly { name: string; previous: number }[],
): Promise<Record<string, number>> {
  const counts = await Promise.all(
    changes
      .filter((change) => change.previous > 0)
      .map(async (change) => {
        const answer = await call("countInstances", {
          query: { process: change.name, version: change.previous, status: "running,pausing,paused,failing" },
        });
        return [change.name, answer.total] as const;
      }),
  );
  return Object.fromEntries(counts);
}
