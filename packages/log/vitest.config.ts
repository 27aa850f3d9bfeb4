import { defineConfig } from "vitest/config";
import { packageTestConfig } from "../../vitest.shared.js";

// Pure, stateless modules: sharing one module graph across test files cuts the run from
// several seconds of worker start-up to about one second.
export default defineConfig(packageTestConfig({ pool: "threads", isolate: false }));
