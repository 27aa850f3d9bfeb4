export { createEngine, type EngineDeps } from "./pump/engine.js";
