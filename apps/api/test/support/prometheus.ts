// Reading /metrics in tests (docs/metrics.md): parse-prometheus-text-format, a real parser of
// the text format, plus the documented metric names.
import { readFileSync } from "node:fs";
import parsePrometheusTextFormat from "parse-prometheus-text-format";

export type Family = {
  name: string;
  type: string;
  metrics: Array<{ labels?: Record<string, string>; value?: string; count?: string; sum?: string }>;
};

export function parse(text: string): Map<string, Family> {
  return new Map((parsePrometheusTextFormat(text) as Family[]).map((f) => [f.name, f]));
}

/** A counter or gauge's value summed over the series with these labels; 0 when absent. */
export function value(families: Map<string, Family>, name: string, labels: Record<string, string> = {}): number {
  const series = families
    .get(name)
    ?.metrics.filter((m) => Object.entries(labels).every(([k, v]) => m.labels?.[k] === v));
  return (series ?? []).reduce((sum, m) => sum + Number(m.value ?? 0), 0);
}

/**
 * A histogram's observation count over the series with these labels, from the `_count` lines of
 * the text: parse-prometheus-text-format keeps the family but folds labelled histograms into
 * one bucket map, dropping their labels and counts.
 */
export function histogramCount(text: string, name: string, labels: Record<string, string> = {}): number {
  let total = 0;
  for (const m of text.matchAll(new RegExp(`^${name}_count\\{([^}]*)\\} (\\S+)$`, "gm"))) {
    const got = Object.fromEntries([...m[1]!.matchAll(/(\w+)="([^"]*)"/g)].map((l) => [l[1], l[2]]));
    if (Object.entries(labels).every(([k, v]) => got[k] === v)) total += Number(m[2]);
  }
  return total;
}

/** The API's metrics as docs/metrics.md's "Every metric" table lists them. */
export function documentedMetrics(): string[] {
  const doc = readFileSync(new URL("../../../../docs/metrics.md", import.meta.url), "utf8");
  const section = doc.slice(doc.indexOf("## Every metric"), doc.indexOf("## The proxy's metrics"));
  return [...section.matchAll(/^\| `([a-z_]+)`/gm)].map((m) => m[1]!);
}
