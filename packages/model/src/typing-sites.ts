// Every place of a task where an expression sits, parsed once (syntax errors reported with
// their path), and the check of one place against its environment.
import {
  type CompiledShape,
  checkCondition,
  checkShape,
  checkTemplate,
  compileShape,
  describeType,
  type Expr,
  ExprSyntaxError,
  ShapeError,
  type Json,
  type JsonSchema,
  parseExpression,
  parseTemplate,
  type Template,
  type TypeEnv,
} from "@baton/expr";
import type { Task } from "./definition.js";
import { isDynamicDuration } from "./duration.js";
import { isPlainObject } from "./json-kind.js";
import { joinPath } from "./problems.js";
import type { Phase } from "./typing-env.js";

/** One parsed place of a task, with the phase whose environment checks it. */
export type Site =
  | {
      kind: "shape";
      phase: Phase;
      path: string;
      shape: CompiledShape;
      role: "payload" | "output" | "other";
      key?: string;
    }
  | { kind: "template"; phase: Phase; path: string; template: Template; want?: "string" | "number" | "array" }
  | { kind: "case"; phase: Phase; path: string; expr: Expr; source: string };

export function checkSite(site: Site, env: TypeEnv, report: (path: string, message: string) => void): JsonSchema {
  switch (site.kind) {
    case "shape": {
      const r = checkShape(site.shape, env);
      for (const p of r.problems) report(p.path, p.message);
      return r.type;
    }
    case "case": {
      const r = checkCondition(site.expr, env, site.source);
      for (const p of r.problems) report(site.path, p.message);
      return r.type;
    }
    case "template": {
      const r = checkTemplate(site.template, env);
      for (const p of r.problems) report(site.path, p.message);
      if (site.want !== undefined && r.problems.length === 0) {
        const wanted = site.want === "number" ? ["number", "integer"] : [site.want];
        const types = typeNames(r.type, env);
        if (types !== undefined && !types.some((t) => wanted.includes(t)))
          report(
            site.path,
            `expected ${site.want === "array" ? "an array" : `a ${site.want}`} expression, got ${describeType(r.type, env.defs)}`,
          );
      }
      return r.type;
    }
  }
}

function typeNames(t: JsonSchema, env: TypeEnv): string[] | undefined {
  const described = describeType(t, env.defs);
  if (described === "unknown") return undefined;
  if (described === "nothing") return [];
  return described.split(" or ").map((s) => s.trim());
}

/** Parses every template of `shape`, reporting each syntax error at its leaf; undefined when any failed. */
export function compileAll(
  shape: Json | undefined,
  path: string,
  report: (path: string, message: string) => void,
): CompiledShape | undefined {
  if (shape === undefined) return undefined;
  try {
    return compileShape(shape, path);
  } catch (e) {
    if (!(e instanceof ShapeError)) throw e;
  }
  // Some leaf does not parse: visit them all, so every syntax error is reported at once.
  const visit = (v: unknown, at: string) => {
    if (typeof v === "string") {
      try {
        parseTemplate(v);
      } catch (e) {
        if (!(e instanceof ExprSyntaxError)) throw e;
        report(at, e.message);
      }
    } else if (Array.isArray(v)) for (const [i, x] of v.entries()) visit(x, joinPath(at, i));
    else if (isPlainObject(v)) for (const [k, x] of Object.entries(v)) visit(x, joinPath(at, k));
  };
  visit(shape, path);
  return undefined;
}

function parseTemplateAt(
  text: string,
  path: string,
  report: (path: string, message: string) => void,
): Template | undefined {
  try {
    return parseTemplate(text);
  } catch (e) {
    if (!(e instanceof ExprSyntaxError)) throw e;
    report(path, e.message);
    return undefined;
  }
}

/** Every expression-bearing place of a task, parsed; syntax errors are reported here. */
export function parseTaskSites(task: Task, path: string, report: (path: string, message: string) => void): Site[] {
  const sites: Site[] = [];
  const shape = (
    value: Json | undefined,
    at: string,
    phase: Phase,
    role: "payload" | "output" | "other",
    key?: string,
  ) => {
    const compiled = compileAll(value, at, report);
    if (compiled !== undefined) sites.push({ kind: "shape", phase, path: at, shape: compiled, role, key });
  };
  const template = (text: string | number | undefined, at: string, want?: "string" | "number" | "array") => {
    if (typeof text !== "string") return;
    const t = parseTemplateAt(text, at, report);
    if (t !== undefined) sites.push({ kind: "template", phase: "payload", path: at, template: t, want });
  };
  const a = task.action;
  const ap = joinPath(path, "action");
  if (a !== undefined) {
    switch (a.type) {
      case "fetch":
        template(a.url, joinPath(ap, "url"), "string");
        if (a.headers !== undefined) shape(a.headers as Json, joinPath(ap, "headers"), "payload", "other");
        if (a.query !== undefined) shape(a.query as Json, joinPath(ap, "query"), "payload", "other");
        if (a.body !== undefined) shape(a.body, joinPath(ap, "body"), "payload", "payload");
        break;
      case "external":
        if (a.input !== undefined) shape(a.input, joinPath(ap, "input"), "payload", "payload");
        break;
      case "child":
        if (a.input !== undefined) shape(a.input, joinPath(ap, "input"), "payload", "payload");
        break;
      case "child_map":
        for (const [key, spec] of Object.entries(a.children))
          if (spec.input !== undefined)
            shape(spec.input, joinPath(joinPath(joinPath(ap, "children"), key), "input"), "payload", "payload", key);
        break;
      case "child_list":
        template(a.over, joinPath(ap, "over"), "array");
        break;
      case "delay":
        if (isDynamicDuration(a.for ?? "")) template(a.for, joinPath(ap, "for"), "number");
        if (isDynamicDuration(a.until ?? "")) template(a.until, joinPath(ap, "until"));
        break;
    }
    const timeout = "timeout" in a ? a.timeout : undefined;
    if (timeout !== undefined) {
      if (isDynamicDuration(timeout.for ?? ""))
        template(timeout.for, joinPath(joinPath(ap, "timeout"), "for"), "number");
      if (isDynamicDuration(timeout.until ?? "")) template(timeout.until, joinPath(joinPath(ap, "timeout"), "until"));
    }
  }
  if (task.output !== undefined) shape(task.output, joinPath(path, "output"), "output", "output");
  // Flow-control keys are evaluated where the action's own templates are, before it runs.
  if (task.concurrency?.key !== undefined)
    template(task.concurrency.key, joinPath(joinPath(path, "concurrency"), "key"));
  if (task.rate_limit?.key !== undefined) template(task.rate_limit.key, joinPath(joinPath(path, "rate_limit"), "key"));
  task.switch.forEach((c, j) => {
    // A "$:" case is already reported by the decoder; parsing it would only add a second problem.
    if (c.case === undefined || c.case.trimStart().startsWith("$:")) return;
    const at = joinPath(joinPath(joinPath(path, "switch"), j), "case");
    try {
      sites.push({ kind: "case", phase: "switch", path: at, expr: parseExpression(c.case), source: c.case });
    } catch (e) {
      if (!(e instanceof ExprSyntaxError)) throw e;
      report(at, e.message);
    }
  });
  return sites;
}

/** The process `concurrency.key`, parsed (docs/flow-control.md): a template checked against `keyEnv`. */
export function parseProcessKeySite(text: string, report: (path: string, message: string) => void): Site | undefined {
  const t = parseTemplateAt(text, "concurrency.key", report);
  return t === undefined ? undefined : { kind: "template", phase: "payload", path: "concurrency.key", template: t };
}
