// Checks that need the whole decoded definition (docs/language.md "switch", "child, child_map, child_list"): codes both raised and
// panicked, and child on_error patterns no child can raise.
import type { Definition } from "../definition.js";
import { codeMatches } from "../error-codes.js";
import { authoredCodeSites, declaredRaises } from "../raises.js";
import type { DecodeContext } from "./decode-context.js";
import { patternChecks, type Scope } from "./scope.js";

export function checkRaisedAndPanicked(sc: Scope, def: Definition): void {
  const { raised, panicked } = authoredCodeSites(def);
  for (const [code, sites] of panicked) {
    const raisedAt = raised.get(code);
    if (raisedAt === undefined) continue;
    for (const at of sites)
      sc.sink.add(
        at,
        `code "${code}" is both raised (${raisedAt[0]}) and panicked here; a parent could not tell whether it may catch it — use two codes`,
        taskAt(def, at),
      );
  }
}

function taskAt(def: Definition, path: string): string | undefined {
  const m = /^tasks\[(\d+)\]/.exec(path);
  return m === null ? undefined : def.tasks[Number(m[1])]?.id;
}

/** At most this many codes are listed in a problem (a child may raise thousands). */
const LISTED_CODES = 20;

/** On a child task, a pattern no child can raise is almost always a typo (docs/language.md "child, child_map, child_list"). */
export function checkChildPatterns(sc: Scope, def: Definition, ctx: DecodeContext): void {
  let ownRaises: string[] | undefined;
  def.tasks.forEach((task, i) => {
    const a = task.action;
    if (a === undefined || (a.type !== "child" && a.type !== "child_map" && a.type !== "child_list")) return;
    const childNames = a.type === "child_map" ? Object.values(a.children).map((c) => c.name) : [a.name];
    const catchable = new Set<string>(["output.invalid"]);
    for (const name of childNames) {
      const raises = name === def.name ? (ownRaises ??= declaredRaises(def)) : ctx.processRaises?.(name);
      if (raises === undefined) return; // unknown child: nothing to check against
      for (const c of raises) catchable.add(c);
    }
    const codes = [...catchable];
    task.on_error.forEach((rule, j) => {
      rule.code?.forEach((pattern, k) => {
        const at = `tasks[${i}].on_error[${j}].code[${k}]`;
        // An exact pattern is one lookup; a wildcard is compared with every code (counted).
        if (pattern.includes("%") ? !patternChecks(sc, codes.length, at) : false) return;
        if (pattern.includes("%") ? codes.some((c) => codeMatches(pattern, c)) : catchable.has(pattern)) return;
        const sorted = codes.sort();
        const listed =
          sorted.length > LISTED_CODES
            ? `${sorted.slice(0, LISTED_CODES).join(", ")} and ${sorted.length - LISTED_CODES} more`
            : sorted.join(", ");
        sc.sink.add(at, `no child of this task can raise "${pattern}" (they raise: ${listed})`, task.id);
      });
    });
  });
}
