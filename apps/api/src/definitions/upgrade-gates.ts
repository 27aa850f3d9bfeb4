// The upgrade verb's compatibility check (docs/compat.md, docs/limits.md#the-checker-thread):
// the gates of moving a process between two stored versions, computed on the checker thread
// from the versions' stored text. They depend on the two versions only — never on where the
// tree's instances sit — so the verb takes them before it locks the tree and applies them to
// the positions it reads under the lock. A stored version never changes, so the gates of a
// pair are kept (per database, for the last few pairs): a bulk upgrade of many roots, or an
// operator upgrading instances one by one, checks the pair once.
import type { UpgradeGate } from "@baton/model";
import { conflict, invalid } from "../refusal.js";
import type { Db } from "../storage/db.js";
import { perDbLruCache } from "../storage/per-db-cache.js";
import type { Checker } from "./checker.js";
import { definitionText } from "./store.js";

/** Pairs whose gates are kept per database; a pair's gates are a short list (null: every task). */
const KEPT_PAIRS = 16;

type Outcome = { gates: UpgradeGate[] } | { tooLarge: true } | { fault: string };
const outcomes = perDbLruCache<Outcome>({ bound: () => KEPT_PAIRS, weigh: () => 1 });

/** A process and the two of its stored versions an upgrade moves between: all the gates depend on. */
export interface UpgradePair {
  process: string;
  fromVersion: number;
  toVersion: number;
}

/**
 * The gating findings of moving `pair.process` from `pair.fromVersion` to `pair.toVersion`, or a
 * 409 when checking passes --limit-compat-steps (`maxSteps`). Rejects with 503 `unavailable` when
 * the checker's queue is full (checker.ts); nothing is kept then.
 */
export async function upgradeGatesOf(
  checker: Checker,
  db: Db,
  pair: UpgradePair,
  maxSteps: number,
): Promise<UpgradeGate[]> {
  const key = `${pair.fromVersion}:${pair.toVersion}:${maxSteps}:${pair.process}`;
  const outcome = outcomes(db).load(key, () => check(checker, db, pair, maxSteps));
  const settled = await outcome;
  if ("gates" in settled) return settled.gates;
  if ("fault" in settled)
    throw invalid(
      `cannot upgrade "${pair.process}" from version ${pair.fromVersion} to ${pair.toVersion}: ${settled.fault}`,
    );
  throw conflict(
    `cannot upgrade "${pair.process}" from version ${pair.fromVersion} to ${pair.toVersion}: checking that the tree can move takes more work than the limit of ${maxSteps} steps (--limit-compat-steps, docs/limits.md)`,
  );
}

async function check(
  checker: Checker,
  db: Db,
  { process, fromVersion, toVersion }: UpgradePair,
  maxSteps: number,
): Promise<Outcome> {
  const [from, to] = await Promise.all([
    definitionText(db, process, fromVersion),
    definitionText(db, process, toVersion),
  ]);
  // The caller saw both versions stored, and a stored version is never deleted.
  if (from === undefined || to === undefined)
    throw new Error(`process "${process}" lost version ${from === undefined ? fromVersion : toVersion}`);
  const reply = await checker.run({ kind: "upgrade", from, to, fromVersion, toVersion, maxSteps });
  return reply.ok ? { gates: reply.gates } : "fault" in reply ? { fault: reply.fault } : { tooLarge: true };
}
