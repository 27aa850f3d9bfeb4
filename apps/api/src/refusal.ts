/**
 * The one way the domain (engine, definitions, views, handlers' own checks) refuses a request
 * for a reason the caller can act on. It carries no HTTP: http/api-error.ts's `toApiError` is
 * the one place that maps a kind to its ApiCode and status. `message` is a sentence a person can
 * act on: what was wrong, where (field path, task id), what was expected.
 */
/** `unavailable`: the server cannot take the request now (a full queue); the caller retries (Retry-After). */
export type RefusalKind = "invalid" | "not_found" | "conflict" | "unsupported" | "unavailable";

export interface FieldProblem {
  path: string;
  message: string;
}

export class Refusal extends Error {
  override readonly name = "Refusal";
  constructor(
    readonly kind: RefusalKind,
    message: string,
    readonly fields?: FieldProblem[],
  ) {
    super(message);
  }
}

export const invalid = (message: string, fields?: FieldProblem[]) => new Refusal("invalid", message, fields);
export const notFound = (message: string) => new Refusal("not_found", message);
export const conflict = (message: string) => new Refusal("conflict", message);
export const unsupported = (message: string) => new Refusal("unsupported", message);
export const unavailable = (message: string) => new Refusal("unavailable", message);
