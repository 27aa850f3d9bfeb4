// Entry of a checker thread (checker.ts): runs one job at a time and answers it.
import { parentPort } from "node:worker_threads";
import { type CheckJob, runCheckJob } from "./check-jobs.js";

parentPort!.on("message", (job: CheckJob) => {
  try {
    parentPort!.postMessage({ ok: true, reply: runCheckJob(job) });
  } catch (error) {
    parentPort!.postMessage({
      ok: false,
      error: error instanceof Error ? (error.stack ?? error.message) : String(error),
    });
  }
});
