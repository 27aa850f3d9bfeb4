// Request and response types of the hook actions (docs/events.md "Hooks"), for the typed client.
import type { Json as JsonValue } from "@baton/expr";

/** How a hook checks who sent a request (docs/events.md "Verifiers"). */
export const HOOK_VERIFIERS = ["standard_webhooks", "github", "stripe", "header"] as const;
export type HookVerifier = (typeof HOOK_VERIFIERS)[number];

export interface HookBody {
  verifier: HookVerifier;
  /** The shared signing secret (write-only: never shown). */
  secret: string;
  /** `header` only: the request header that must carry the secret. */
  header?: string;
  /** `header` only: the request header naming each delivery (replays of it are not acted on). */
  id_header?: string;
  /** The JSON Schema of the body: what the shapes may read into, checked on every request. */
  body_schema?: JsonValue;
  /** Largest distance between a signed timestamp and now, in ms (default 5 minutes). */
  tolerance_ms?: number;
  /** Start a process: its input is a shape over `body`, `headers`, `query`. */
  start?: { process: string; channel?: string; input?: JsonValue; business_key?: string };
  /** Signal the waiting external task `task` of the instance of `process` with this business key. */
  signal?: { process: string; task: string; business_key: string; result?: JsonValue };
}

export interface HookRequestRecord {
  delivery_id: string;
  received_at: string;
  outcome: "started" | "signalled" | "failed";
  instance_id: string | null;
  detail: string | null;
}

export interface Hook {
  name: string;
  path: string;
  verifier: HookVerifier;
  header: string | null;
  id_header: string | null;
  tolerance_ms: number;
  body_schema: JsonValue | null;
  start: HookBody["start"] | null;
  signal: HookBody["signal"] | null;
  actor: string | null;
  created_at: string;
  updated_at: string;
  /** The single view only: the last requests it acted on, newest first. */
  last_requests?: HookRequestRecord[];
}

export interface HookReceipt {
  delivery_id: string;
  /** This delivery id was acted on before: nothing was started or signalled again. */
  duplicate: boolean;
  outcome: HookRequestRecord["outcome"];
  instance_id: string | null;
}
