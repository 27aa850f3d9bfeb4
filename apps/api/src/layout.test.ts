import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

// The import rules of docs/architecture.md ("Import rules"), checked on the source text so a
// violation fails `pnpm test` (and CI) instead of waiting for review.

const SRC = dirname(fileURLToPath(import.meta.url));
function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith(".ts") && !entry.name.endsWith(".test.ts") ? [path] : [];
  });
}

/** Every import of a source file: `{ spec, target }`, target a path under src/ for relative specs. */
function importsOf(file: string): Array<{ spec: string; target?: string }> {
  const text = readFileSync(file, "utf8");
  const specs = [...text.matchAll(/(?:^|\n)\s*(?:import|export)\s[^;]*?from\s+"([^"]+)"/g)].map((m) => m[1]!);
  specs.push(...[...text.matchAll(/import\(\s*"([^"]+)"\s*\)/g)].map((m) => m[1]!));
  return specs.map((spec) =>
    spec.startsWith(".") ? { spec, target: relative(SRC, resolve(dirname(file), spec)) } : { spec },
  );
}

function violations(under: string, forbidden: (imp: { spec: string; target?: string }) => boolean): string[] {
  return sourceFiles(join(SRC, under)).flatMap((file) =>
    importsOf(file)
      .filter(forbidden)
      .map((imp) => `${relative(SRC, file)} imports ${imp.spec}`),
  );
}

describe("source layout", () => {
  it("keeps one advance pure: engine/advance/ never does I/O, nor touches storage, SQL, config or the other engine rooms", () => {
    const found = violations("engine/advance", ({ spec, target }) => {
      if (spec.startsWith("drizzle-orm") || spec === "postgres" || spec.startsWith("@electric-sql/")) return true;
      if (/^node:(http|https|net|dns|tls|dgram|child_process|fs)(\/|$)/.test(spec)) return true;
      if (target === undefined) return false;
      return (
        target.startsWith("storage") ||
        target.startsWith("definitions") ||
        target === "config.js" ||
        /^engine\/(pump|trees|external|fetch|starts|housekeeping)\//.test(target) ||
        /^engine\/(leases|carry|index)\.js$/.test(target) ||
        target.startsWith("handlers") ||
        target.startsWith("http")
      );
    });
    expect(found).toEqual([]);
  });

  it("has the worker side (engine/external/) reach the pump only through the leases and the carry types", () => {
    const found = violations("engine/external", ({ target }) => target?.startsWith("engine/pump/") === true);
    expect(found).toEqual([]);
  });

  it("keeps the engine below its handle: no engine file imports engine/index.ts or services.ts", () => {
    const found = violations("engine", ({ target }) => target === "engine/index.js" || target === "services.js");
    expect(found).toEqual([]);
  });

  it("has handlers reach the engine only through engine/index.ts", () => {
    const found = violations(
      "handlers",
      ({ target }) => target?.startsWith("engine/") === true && target !== "engine/index.js",
    );
    expect(found).toEqual([]);
  });

  it("keeps HTTP out of the engine and the views: they refuse with Refusal, never ApiError", () => {
    const found = [...violations("engine", isHttp), ...violations("views", isHttp)];
    expect(found).toEqual([]);
  });

  it("has no import cycles between source files, type-only imports included", () => {
    const graph = new Map(
      sourceFiles(SRC).map((file) => [
        relative(SRC, file),
        importsOf(file).flatMap(({ target }) => (target === undefined ? [] : [target.replace(/\.js$/, ".ts")])),
      ]),
    );
    const cycles: string[] = [];
    const done = new Set<string>();
    const visit = (file: string, path: string[]): void => {
      const at = path.indexOf(file);
      if (at >= 0) {
        cycles.push([...path.slice(at), file].join(" → "));
        return;
      }
      if (done.has(file)) return;
      for (const next of graph.get(file) ?? []) visit(next, [...path, file]);
      done.add(file);
    };
    for (const file of graph.keys()) visit(file, []);
    expect(cycles).toEqual([]);
  });
});

function isHttp({ spec, target }: { spec: string; target?: string }): boolean {
  return spec === "hono" || (target !== undefined && (target.startsWith("http/") || target.startsWith("handlers/")));
}
