import type { ActionName, ActionSpec, ActionTypes } from "@baton/actions";
import type { Principal } from "../auth/principal.js";
import type { Services } from "../services.js";

// Handlers are typed per action from the registry's own request and response types
// (packages/actions types.ts), so the server sees what the typed client sends and expects.

/** An action's part, or an empty object when the action has none. */
type Part<T> = [T] extends [undefined] ? Record<string, never> : Exclude<T, undefined>;

export interface ActionRequest<N extends ActionName = ActionName> {
  action: ActionSpec;
  /** Path parameters, decoded and validated. */
  params: Part<ActionTypes[N]["params"]>;
  /** Query parameters, validated and coerced to the registry's declared types. */
  query: Partial<Part<ActionTypes[N]["query"]>>;
  /** Parsed losslessly (@baton/expr parseJson) and validated against the registry's body schema. */
  body: ActionTypes[N]["body"];
  principal: Principal;
  /** The request headers; an action reads only those its registry entry declares (`headers`). */
  headers: Headers;
  /** Aborted when the client goes away before the answer (a long-poll stops waiting). */
  abort?: AbortSignal;
  /** The request's server span as a traceparent, while the server traces (docs/tracing.md "Spans"). */
  traceParent?: string;
}

export interface ActionReply<N extends ActionName = ActionName> {
  /** Default 200. 204 sends no body. */
  status?: number;
  /** Serialised with stringifyJson unless `contentType` says otherwise (then it is the text sent). */
  body?: ActionTypes[N]["response"];
  contentType?: string;
  headers?: Record<string, string>;
}

/** Throws Refusal (src/refusal.ts) for client-visible failures. */
export type ActionHandler<N extends ActionName> = (
  request: ActionRequest<N>,
  services: Services,
) => Promise<ActionReply<N>>;

/** Action name → handler. An action without a handler answers 501 `unsupported`. */
export type ActionHandlers = { [N in ActionName]?: ActionHandler<N> };
