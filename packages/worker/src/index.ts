// @baton/worker: answer Baton external tasks from Node (docs/worker.md).
export { createWorker, raise, TaskStopped } from "./worker.js";
export type * from "./types.js";
