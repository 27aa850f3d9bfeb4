import type { ActionSpec } from "@baton/actions";
import type { Principal } from "../auth/principal.js";
import type { Services } from "../services.js";

export interface ActionRequest {
  action: ActionSpec;
  /** Path parameters, decoded. */
  params: Record<string, string>;
  /** Query parameters, validated and coerced to the registry's declared types. */
  query: Record<string, any>;
  /** Parsed losslessly (@baton/expr parseJson) and validated against the registry's body schema. */
  body: any;
  principal: Principal;
  /** The request URL, for links (per-process docs). */
  url: URL;
  /** The request headers; an action reads only those its registry entry declares (`headers`). */
  headers: Headers;
  /** Aborted when the client goes away before the answer (a long-poll stops waiting). */
  signal?: AbortSignal;
}

export interface ActionReply {
  /** Default 200. 204 sends no body. */
  status?: number;
  /** Serialised with stringifyJson unless `contentType` says otherwise. */
  body?: unknown;
  contentType?: string;
  headers?: Record<string, string>;
}

/** Throws ApiError for client-visible failures. */
export type ActionHandler = (request: ActionRequest, services: Services) => Promise<ActionReply>;

/** Action name → handler. An action without a handler answers 501 `unsupported`. */
export type ActionHandlers = Record<string, ActionHandler>;
