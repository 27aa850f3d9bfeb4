// The API as the UI calls it: same origin, relative `/api/...`, no credentials of its own (the
// sign-in proxy adds them). A 401 anywhere means the session ended: the app shows sign-in.

import {
  type ActionName,
  type ActionResponse,
  ApiError,
  createClient,
  type RawResponse,
  type RequestArgs,
} from "@baton/actions";

// Bound through a closure: a bare `fetch` reference called as a plain function can throw
// "Illegal invocation" in some browsers.
const client = createClient({ server: "", fetch: (input, init) => globalThis.fetch(input, init) });

let onUnauthenticated: () => void = () => {};

/** Who to tell when the API answers 401 (the app swaps to the sign-in page). */
export function setUnauthenticatedHandler(handler: () => void): void {
  onUnauthenticated = handler;
}

function watch(error: unknown): never {
  if (error instanceof ApiError && error.status === 401) onUnauthenticated();
  throw error;
}

export function call<N extends ActionName>(name: N, ...req: RequestArgs<N>): Promise<ActionResponse<N>> {
  return client.call(name, ...req).catch(watch);
}

export function callRaw<N extends ActionName>(name: N, ...req: RequestArgs<N>): Promise<RawResponse<N>> {
  return client.callRaw(name, ...req).catch(watch);
}

/** A person-readable account of a failure: the API's sentence, then each field path. */
export function errorLines(error: unknown): string[] {
  if (error instanceof ApiError) return [error.message, ...(error.fields ?? []).map((f) => `${f.path}: ${f.message}`)];
  if (error instanceof Error) return [error.message];
  return [String(error)];
}
