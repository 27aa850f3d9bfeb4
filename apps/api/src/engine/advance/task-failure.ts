import type { Json } from "@baton/expr";

/** An action or evaluation ended with an error code (docs/language.md#error-codes); routed through on_error unless `engine.*`. */
export class TaskFailure extends Error {
  override readonly name = "TaskFailure";
  readonly code: string;
  readonly data?: Json;
  /** Extra keys of the `error` root (`child_key`/`child_index` of a raised child). */
  readonly context?: { [key: string]: Json };

  constructor(code: string, message: string, data?: Json, context?: { [key: string]: Json }) {
    super(message);
    this.code = code;
    this.data = data;
    this.context = context;
  }
}
