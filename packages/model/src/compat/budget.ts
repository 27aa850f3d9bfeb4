// The work bound of comparing two versions (docs/limits.md, --limit-compat-steps). The upgrade
// analysis replays flows from each task an instance may sit on; for ordinary version pairs it
// is cheap, but two large definitions that differ everywhere cost far more than their size.
// Every loop of it spends steps here, so it stops at the bound instead of running for hours.

/** Comparing two versions passed `limit` steps: the caller refuses (compat: 400, upgrade: 409). */
export class CompatTooLarge extends Error {
  override readonly name = "CompatTooLarge";
  constructor(readonly limit: number) {
    super(`comparing these two versions takes more than ${limit} steps (the compatibility check's work limit)`);
  }
}

export interface CompatBudget {
  /** Counts `steps` of work; throws CompatTooLarge past the limit. */
  spend(steps: number): void;
}

export function compatBudget(limit: number): CompatBudget {
  let used = 0;
  return {
    spend(steps) {
      used += steps;
      if (used > limit) throw new CompatTooLarge(limit);
    },
  };
}
