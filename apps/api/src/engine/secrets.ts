import { isLosslessNumber, type Json, parseWrittenJson, stringifyJson } from "@baton/expr";
import type { Definition } from "@baton/model";
import type { AdvanceResult } from "./advance/advance-types.js";
import { configRoot, configVariables } from "./advance/config-root.js";

// Redaction of `config_schema` properties marked `secret: true` (docs/language.md#secrets, docs/security.md). The stored
// instance state keeps the real values (later tasks read them); every boundary where a value
// leaves the engine — log entries, error_message, API views, the server's stderr — goes
// through redactText/redactJson.

export const REDACTED = "***";

/**
 * Secrets shorter than this are not redacted: replacing every "1" or "ab" in logs and views
 * would mangle unrelated text and hint at the value anyway. Secrets should be long.
 */
export const MIN_SECRET_LENGTH = 4;

/**
 * The values of `definition`'s secret config properties as read from `env` (same precedence as
 * the `config` root), rendered as they could appear in text: strings as is, other values as
 * JSON. Longest first, so a secret containing another is replaced whole. Settings that are
 * unset, invalid or shorter than MIN_SECRET_LENGTH are left out.
 */
export function secretValues(definition: Definition, env: NodeJS.ProcessEnv): string[] {
  const properties = (definition.config_schema?.properties ?? {}) as Record<string, { secret?: unknown }>;
  const secretNames = Object.keys(properties).filter((name) => properties[name]?.secret === true);
  if (secretNames.length === 0) return [];
  const values = new Set<string>();
  for (const name of secretNames) {
    for (const value of readSecret(definition, env, name)) if (value.length >= MIN_SECRET_LENGTH) values.add(value);
  }
  return [...values].sort((a, b) => b.length - a.length);
}

function readSecret(definition: Definition, env: NodeJS.ProcessEnv, name: string): string[] {
  const properties = definition.config_schema?.properties as Record<string, unknown>;
  const only = {
    ...definition,
    config_schema: { ...definition.config_schema, properties: { [name]: properties[name] }, required: [] },
  } as Definition;
  let value: Json;
  try {
    value = configRoot(only, env)[name] ?? null;
  } catch {
    // Not valid JSON for its type: the instance fails with engine.config; the raw text is still secret.
    const raw = rawSetting(definition, env, name);
    return raw === undefined ? [] : [raw];
  }
  if (value === null) return [];
  if (typeof value === "string") return [value];
  const raw = rawSetting(definition, env, name);
  return [stringifyJson(value), ...(raw === undefined ? [] : [raw])];
}

function rawSetting(definition: Definition, env: NodeJS.ProcessEnv, name: string): string | undefined {
  const [processVariable, globalVariable] = configVariables(definition.name, name);
  return env[processVariable] ?? env[globalVariable];
}

/**
 * The spellings a secret takes on the wire, each replaced like the value itself
 * (docs/security.md "Secrets in messages, logs and views"): URL-encoded (component and form
 * style, upper- and lower-case hex), JSON-escaped (also with `\/` and `\uXXXX` escapes), and
 * base64/base64url — of the value alone, and the part of its encoding that any base64 text
 * carrying the value at each of the three byte alignments must contain (`Authorization: Basic`
 * encodes `user:secret`). Transformations by expressions (upper(), substrings, hashes) are
 * not caught: the result is another string.
 */
export function encodedForms(secret: string): string[] {
  const forms = new Set<string>([secret]);
  const component = encodeURIComponent(secret);
  forms.add(component);
  forms.add(component.replace(/%[0-9A-F]{2}/g, (h) => h.toLowerCase()));
  forms.add(new URLSearchParams({ v: secret }).toString().slice(2));
  forms.add(encodeURI(secret));
  const json = JSON.stringify(secret).slice(1, -1);
  const ascii = json.replace(/[\u007f-\uffff]/g, (ch) => `\\u${ch.charCodeAt(0).toString(16).padStart(4, "0")}`);
  for (const form of [json, ascii]) {
    forms.add(form);
    forms.add(form.replace(/\//g, "\\/"));
  }
  const bytes = Buffer.from(secret, "utf8");
  for (const encoding of ["base64", "base64url"] as const) {
    forms.add(bytes.toString(encoding));
    for (let skip = 0; skip < 3; skip++) {
      // Bytes from `skip` on, in whole groups of three: their characters do not depend on what surrounds the secret.
      const whole = bytes.subarray(skip, skip + Math.floor((bytes.length - skip) / 3) * 3);
      if (whole.length >= 6) forms.add(whole.toString(encoding));
    }
  }
  return [...forms].filter((f) => f.length >= MIN_SECRET_LENGTH);
}

const patternMemo = new Map<string, string[]>();

/** Every encoded form of every secret, longest first (a form containing another is replaced whole). */
function redactionPatterns(secrets: readonly string[]): string[] {
  const key = secrets.join("\u0000");
  let patterns = patternMemo.get(key);
  if (patterns === undefined) {
    patterns = [...new Set(secrets.flatMap(encodedForms))].sort((a, b) => b.length - a.length);
    if (patternMemo.size >= 1000) patternMemo.delete(patternMemo.keys().next().value!);
    patternMemo.set(key, patterns);
  }
  return patterns;
}

/** `text` with every occurrence of every secret, in each of its encodedForms, replaced by `***`. */
export function redactText(text: string, secrets: readonly string[]): string {
  if (secrets.length === 0) return text;
  let out = text;
  for (const pattern of redactionPatterns(secrets)) if (out.includes(pattern)) out = out.split(pattern).join(REDACTED);
  return out;
}

/** A copy of `value` with secrets redacted in every string and object key; unchanged parts are shared. */
export function redactJson<T extends Json | undefined>(value: T, secrets: readonly string[]): T {
  if (secrets.length === 0) return value;
  return redactValue(value as Json | undefined, secrets) as T;
}

function redactValue(value: Json | undefined, secrets: readonly string[]): Json | undefined {
  if (typeof value === "string") return redactText(value, secrets);
  if (value === null || value === undefined || typeof value !== "object" || isLosslessNumber(value)) return value;
  if (Array.isArray(value)) return value.map((item) => redactValue(item, secrets) as Json);
  const out: { [key: string]: Json } = {};
  for (const [key, item] of Object.entries(value)) out[redactText(key, secrets)] = redactValue(item, secrets) as Json;
  return out;
}

/** JSON text (lossless numbers kept as written) with secrets redacted inside its strings. */
export function redactJsonText(text: string, secrets: readonly string[]): string {
  if (secrets.length === 0 || !redactionPatterns(secrets).some((p) => text.includes(p))) return text;
  return stringifyJson(redactJson(parseWrittenJson(text), secrets));
}

const declaredOf = new WeakMap<NodeJS.ProcessEnv, readonly string[]>();

/**
 * Declares the values the operator marked secret where they are configured (--secret-settings,
 * `_FILE` settings: docs/security.md "The secret model") as secret for every reader of `env`:
 * secretsCache and the views' serverSecrets add them to each definition's own. Set once at
 * start, before the engine and the handlers read `env`.
 */
export function declareSecretValues(env: NodeJS.ProcessEnv, values: readonly string[]): void {
  declaredOf.set(env, [...new Set(values.filter((value) => value.length >= MIN_SECRET_LENGTH))]);
}

/** The values declared secret for `env` by declareSecretValues (none if never declared). */
export function declaredSecretValues(env: NodeJS.ProcessEnv): readonly string[] {
  return declaredOf.get(env) ?? [];
}

/** Secret values with the declared ones added, longest first (a value containing another is replaced whole). */
export function withDeclaredSecrets(values: readonly string[], env: NodeJS.ProcessEnv): string[] {
  const declared = declaredSecretValues(env);
  if (declared.length === 0) return values as string[];
  return [...new Set([...values, ...declared])].sort((a, b) => b.length - a.length);
}

/** secretValues per definition object, with the declared values, computed once (definitions are immutable and cached). */
export function secretsCache(env: NodeJS.ProcessEnv): (definition: Definition) => string[] {
  const cache = new WeakMap<Definition, string[]>();
  return (definition) => {
    let secrets = cache.get(definition);
    if (secrets === undefined) {
      secrets = withDeclaredSecrets(secretValues(definition, env), env);
      cache.set(definition, secrets);
    }
    return secrets;
  };
}

/**
 * The advance's log entries and error_message with secrets redacted, before they are written
 * (and before logs.ts truncates them, which could cut a secret in half). `state` and `output`
 * keep the real values: they are stored, and only redacted when shown.
 */
export function redactAdvanceResult(result: AdvanceResult, secrets: readonly string[]): AdvanceResult {
  if (secrets.length === 0) return result;
  result.errorMessage = result.errorMessage === null ? null : redactText(result.errorMessage, secrets);
  result.logs = result.logs.map((entry) => ({
    ...entry,
    message: redactText(entry.message, secrets),
    data: entry.data === null || entry.data === undefined ? entry.data : redactJson(entry.data as Json, secrets),
  })) as AdvanceResult["logs"];
  return result;
}
