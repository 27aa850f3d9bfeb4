import { defineConfig } from "vitest/config";
import { packageTestConfig } from "../../../vitest.shared.js";

// expect.poll waits for what the page shows; vitest's default of 1 s is shorter than one
// refresh of a live page (3 s) and than a page load on a loaded CI machine. A poll ends as soon
// as its condition holds, so a long deadline costs nothing when the page is fast.
// One file at a time (the shared default is two): each file drives its own chromium, whose
// renderer needs a core of its own to keep a page's 10 s action timeouts (harness.ts) hang guards.
export default defineConfig(packageTestConfig({ expect: { poll: { timeout: 20_000 } }, maxWorkers: 1 }));
