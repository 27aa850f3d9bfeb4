export { createEngine, type EngineDeps } from "./engine.js";
