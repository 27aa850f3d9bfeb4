// The instance list's filters, kept in the URL (so a filtered view is a link) and turned into
// the query of `GET /instances`. The URL carries the API's own values: times as unix ms.

import { INSTANCE_PHASES, INSTANCE_STATUSES, type ListInstancesQuery } from "@baton/actions";

/** A business key's longest length (docs/api.md "Business keys"). */
export const KEY_MAX_LENGTH = 200;
export const TIME_FILTERS = ["created_after", "created_before", "updated_after", "updated_before"] as const;
type TimeFilter = (typeof TIME_FILTERS)[number];

export interface InstanceFilters {
  status: string[];
  process: string;
  version: string;
  phase: string;
  task: string;
  error_code: string;
  /** The business key (exact), an extension filter of `GET /instances`. */
  key: string;
  children: boolean;
  /** Unix ms as text, or "" when unset. */
  created_after: string;
  created_before: string;
  updated_after: string;
  updated_before: string;
}

export const EMPTY_FILTERS: InstanceFilters = {
  status: [],
  process: "",
  version: "",
  phase: "",
  task: "",
  error_code: "",
  key: "",
  children: false,
  created_after: "",
  created_before: "",
  updated_after: "",
  updated_before: "",
};

const TEXT_FILTERS = ["process", "version", "phase", "task", "error_code", "key", ...TIME_FILTERS] as const;

/** The filters the compact bar folds under "More filters" (it opens by itself when one is set). */
export const MORE_FILTERS = ["version", "task", "phase", "children", ...TIME_FILTERS] as const;

export function hasMoreFilters(filters: InstanceFilters): boolean {
  return MORE_FILTERS.some((key) => (key === "children" ? filters.children : filters[key] !== ""));
}

/** Filters from the list's URL query; unknown keys are ignored. */
export function filtersFromSearch(search: string): InstanceFilters {
  const params = new URLSearchParams(search);
  const filters: InstanceFilters = { ...EMPTY_FILTERS, status: [] };
  const status = params.get("status");
  if (status)
    filters.status = status
      .split(",")
      .map((s) => s.trim())
      .filter(Boolean);
  for (const key of TEXT_FILTERS) filters[key] = params.get(key)?.trim() ?? "";
  filters.children = params.get("children") === "true";
  return filters;
}

/** The URL query of the filters, with empty ones left out (so the default view is `#/instances`). */
export function filtersToSearch(filters: InstanceFilters): string {
  const params = new URLSearchParams();
  if (filters.status.length) params.set("status", filters.status.join(","));
  for (const key of TEXT_FILTERS) if (filters[key].trim()) params.set(key, filters[key].trim());
  if (filters.children) params.set("children", "true");
  return params.toString();
}

/** What is wrong with the filters, one sentence each; the list is not fetched while any remain. */
export function filterProblems(filters: InstanceFilters): string[] {
  const problems: string[] = [];
  if (/[%*?]/.test(filters.error_code) && errorCodePrefix(filters.error_code) === null)
    problems.push(
      `error code "${filters.error_code}" has a wildcard that is not at its end: the error code is matched exactly (http.503), or as a prefix with one % or * at the end (http.5%)`,
    );
  for (const status of filters.status) {
    if (!(INSTANCE_STATUSES as readonly string[]).includes(status))
      problems.push(`status "${status}" is not one of ${INSTANCE_STATUSES.join(", ")}`);
  }
  if (filters.phase && !(INSTANCE_PHASES as readonly string[]).includes(filters.phase))
    problems.push(`phase "${filters.phase}" is not one of ${INSTANCE_PHASES.join(", ")}`);
  if (filters.version && !/^\d+$/.test(filters.version))
    problems.push(`version "${filters.version}" is not a whole number (0 means any)`);
  if (filters.key.length > KEY_MAX_LENGTH)
    problems.push(`the business key is ${filters.key.length} characters long; a key has at most ${KEY_MAX_LENGTH}`);
  if (filters.task && !filters.process)
    problems.push("the task filter needs a process: task ids are unique only within a definition");
  for (const key of TIME_FILTERS) {
    if (filters[key] && !/^\d+$/.test(filters[key]))
      problems.push(`${key.replace("_", " ")} "${filters[key]}" is not a time`);
  }
  return problems;
}

/** The prefix a code ending in one `%` or `*` asks for (`http.5%` → `http.5`), or null for an exact code. */
export function errorCodePrefix(code: string): string | null {
  const match = /^([^%*?]+)[%*]$/.exec(code.trim());
  return match ? match[1]! : null;
}

/** The `GET /instances` query of valid filters (check `filterProblems` first). */
export function filtersToQuery(filters: InstanceFilters): ListInstancesQuery {
  const query: ListInstancesQuery = {};
  if (filters.status.length) query.status = filters.status.join(",");
  if (filters.process) query.process = filters.process;
  if (filters.version) query.version = Number(filters.version);
  if (filters.phase) query.phase = filters.phase as ListInstancesQuery["phase"];
  if (filters.task) query.task = filters.task;
  const prefix = errorCodePrefix(filters.error_code);
  if (prefix !== null) query.error_code_prefix = prefix;
  else if (filters.error_code) query.error_code = filters.error_code;
  if (filters.key) query.key = filters.key;
  if (filters.children) query.children = true;
  for (const key of TIME_FILTERS) if (filters[key]) query[key as TimeFilter] = Number(filters[key]);
  return query;
}

function pad(n: number): string {
  return String(n).padStart(2, "0");
}

/** Unix ms → the value of an `<input type="datetime-local">` in the browser's time zone. */
export function msToLocalInput(ms: string): string {
  if (!/^\d+$/.test(ms)) return "";
  const d = new Date(Number(ms));
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}T${pad(d.getHours())}:${pad(d.getMinutes())}`;
}

/** The value of an `<input type="datetime-local">` → unix ms as text ("" when empty or invalid). */
export function localInputToMs(value: string): string {
  if (!value) return "";
  const ms = new Date(value).getTime();
  return Number.isFinite(ms) ? String(ms) : "";
}
