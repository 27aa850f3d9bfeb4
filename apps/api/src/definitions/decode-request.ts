// The event loop's side of the definition endpoints (docs/limits.md "Requests"): their bodies
// arrive unparsed (http/app.ts), and everything about them — parsing, request validation, the
// registration checks — runs on a checker thread (request-job.ts). What the checks need from
// the database is read here and sent with the job.
import type { DefinitionLimits } from "@baton/model";
import { Refusal } from "../refusal.js";
import type { Db } from "../storage/db.js";
import type { Checker } from "./checker.js";
import type { CheckedCompat, DecodedText, DefinitionAction } from "./request-job.js";
import { registeredProcesses } from "./store.js";

/** A definition that passed the registration checks: what storing it needs, and (validate) its answer. */
export type CheckedDefinition = DecodedText;

/** The body of a definition endpoint as the handler receives it: the text, never parsed on the event loop. */
export interface UnparsedBody {
  unparsed: string;
}

export interface CheckedRequest {
  /** The body's definitions, checked, in request order (none for compat). */
  definitions: CheckedDefinition[];
  /** PUT /definitions/batch: the channel. */
  channel?: string;
  /** POST /definitions/compat: the body, its unsaved definitions decoded. */
  compat?: CheckedCompat;
}

/**
 * Validates and checks the body of a definition endpoint on the checker thread; a refusal
 * (400 with the paths of the body, 503 when the checker is busy) is thrown as it came.
 */
export async function checkDefinitionRequest(
  checker: Checker,
  db: Db,
  action: DefinitionAction,
  body: UnparsedBody,
  limits: Partial<DefinitionLimits>,
  visible: (process: string) => boolean = () => true,
): Promise<CheckedRequest> {
  // A process the caller's scopes do not reach is, to its checks, not registered (docs/auth.md "Scopes").
  const registered = (await registeredProcesses(db)).filter(([name]) => visible(name));
  const reply = await checker.run({ kind: "request", action, body: body.unparsed, registered, limits });
  if (!reply.ok) throw new Refusal(reply.kind, reply.message, reply.fields);
  return { definitions: reply.decoded, channel: reply.channel, compat: reply.compat };
}
