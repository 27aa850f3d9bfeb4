import { parseDuration } from "./duration.js";
import { isPermission, PERMISSIONS, SCOPE_PATTERN } from "./permissions.js";

/** A file-system error as a few words for a config issue. */
export function fileProblem(error: unknown): string {
  const code = (error as NodeJS.ErrnoException).code;
  return code === "ENOENT"
    ? "no such file"
    : code === "EACCES"
      ? "permission denied"
      : code === "EISDIR"
        ? "it is a directory"
        : (code ?? "unreadable");
}

function describe(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "a list";
  return typeof value === "object" ? "a mapping" : `a ${typeof value}`;
}

/** Collects issues as `<field path>: <problem>`; readers return undefined for an absent or bad value. */
export class Validator {
  readonly issues: string[] = [];

  issue(path: string, problem: string): void {
    this.issues.push(`${path}: ${problem}`);
  }

  keys(o: Record<string, unknown>, path: string, allowed: string[]): void {
    for (const k of Object.keys(o)) {
      if (!allowed.includes(k))
        this.issue(path ? `${path}.${k}` : k, `unknown field; expected one of ${allowed.join(", ")}`);
    }
  }

  object(value: unknown, path: string): Record<string, unknown> | undefined {
    if (value !== null && typeof value === "object" && !Array.isArray(value)) return value as Record<string, unknown>;
    this.issue(path, `must be a mapping, got ${describe(value)}`);
    return undefined;
  }

  array(value: unknown, path: string): unknown[] {
    if (value === undefined || value === null) return [];
    if (Array.isArray(value)) return value;
    this.issue(path, `must be a list, got ${describe(value)}`);
    return [];
  }

  string(value: unknown, path: string, required = false): string | undefined {
    if (value === undefined || value === null) {
      if (required) this.issue(path, "is required (a string)");
      return undefined;
    }
    if (typeof value !== "string") {
      this.issue(path, `must be a string, got ${describe(value)}`);
      return undefined;
    }
    if (value.trim() === "") {
      this.issue(path, "must not be empty");
      return undefined;
    }
    return value;
  }

  url(value: unknown, path: string, required: boolean): string | undefined {
    const s = this.string(value, path, required);
    if (s === undefined) return undefined;
    let url: URL;
    try {
      url = new URL(s);
    } catch {
      this.issue(path, `"${s}" is not a URL; expected http://… or https://…`);
      return undefined;
    }
    if (url.protocol !== "http:" && url.protocol !== "https:") {
      this.issue(path, `"${s}" must be an http:// or https:// URL`);
      return undefined;
    }
    return s;
  }

  boolean(value: unknown, path: string): boolean | undefined {
    if (value === undefined || value === null) return undefined;
    if (typeof value === "boolean") return value;
    this.issue(path, `must be true or false, got ${describe(value)}`);
    return undefined;
  }

  duration(value: unknown, path: string): number | undefined {
    if (value === undefined || value === null) return undefined;
    const ms = typeof value === "string" ? parseDuration(value) : null;
    if (ms === null || ms <= 0) {
      this.issue(
        path,
        `${typeof value === "string" ? `"${value}"` : describe(value)} is not a duration; expected e.g. 12h, 90m, 1h30m, 30s`,
      );
      return undefined;
    }
    return ms;
  }

  stringArray(value: unknown, path: string): string[] {
    return this.array(value, path).flatMap((item, i) => {
      const s = this.string(item, `${path}[${i}]`, true);
      return s === undefined ? [] : [s];
    });
  }

  /** A list of strings, or one space-separated string. */
  scopes(value: unknown, path: string): string[] | undefined {
    if (value === undefined || value === null) return undefined;
    const scopes = typeof value === "string" ? value.split(/\s+/).filter(Boolean) : this.stringArray(value, path);
    if (!scopes.includes("openid"))
      this.issue(path, "must include openid (the id_token carries the subject and groups)");
    return scopes;
  }

  permissionMap(value: unknown, path: string): Record<string, string[]> {
    const out: Record<string, string[]> = {};
    if (value === undefined || value === null) return out;
    const o = this.object(value, path);
    if (!o) return out;
    for (const [key, list] of Object.entries(o)) {
      const at = `${path}.${key}`;
      if (!Array.isArray(list)) {
        this.issue(at, `must be a list of permissions (${PERMISSIONS.join(", ")}), got ${describe(list)}`);
        continue;
      }
      out[key] = list.flatMap((p, i) => {
        if (typeof p === "string" && isPermission(p)) return [p];
        this.issue(
          `${at}[${i}]`,
          `${typeof p === "string" ? `"${p}"` : describe(p)} is not a permission; expected one of ${PERMISSIONS.join(", ")}`,
        );
        return [];
      });
    }
    return out;
  }

  /** `role_scopes` / `user_scopes`: name → list of scope patterns (docs/auth.md "Scopes"). */
  scopeMap(value: unknown, path: string): Record<string, string[]> {
    const out: Record<string, string[]> = {};
    if (value === undefined || value === null) return out;
    const o = this.object(value, path);
    if (!o) return out;
    for (const [key, list] of Object.entries(o)) {
      const at = `${path}.${key}`;
      if (!Array.isArray(list)) {
        this.issue(at, `must be a list of process-name patterns (billing, orders-*), got ${describe(list)}`);
        continue;
      }
      out[key] = list.flatMap((p, i) => {
        if (typeof p === "string" && SCOPE_PATTERN.test(p)) return [p];
        this.issue(
          `${at}[${i}]`,
          `${typeof p === "string" ? `"${p}"` : describe(p)} is not a scope pattern; expected a process name, a prefix of one followed by * (orders-*), or *`,
        );
        return [];
      });
    }
    return out;
  }
}
