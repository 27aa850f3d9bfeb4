import type { DelayAction } from "../definition.js";
import { joinPath } from "../problems.js";
import { checkUntil, decodeFor } from "./decode-timing.js";
import { rejectUnknownFields, report, type Scope } from "./scope.js";

export function decodeDelay(sc: Scope, raw: Record<string, unknown>, path: string): DelayAction {
  rejectUnknownFields(sc, raw, ["type", "for", "until", "tz"], path);
  const out: DelayAction = { type: "delay" };
  if (raw.for === undefined && raw.until === undefined)
    report(sc, path, "a delay needs for (a duration) or until (a time)");
  if (raw.for !== undefined && raw.until !== undefined) report(sc, path, "give either for or until, not both");
  if (raw.for !== undefined) {
    const f = decodeFor(sc, raw.for, joinPath(path, "for"));
    if (f !== undefined) out.for = f;
    if (raw.tz !== undefined) report(sc, joinPath(path, "tz"), "tz applies only to until");
  } else if (raw.until !== undefined) {
    checkUntil(sc, raw.until, raw.tz, path);
    if (typeof raw.until === "string") out.until = raw.until;
    if (typeof raw.tz === "string") out.tz = raw.tz;
  }
  return out;
}
