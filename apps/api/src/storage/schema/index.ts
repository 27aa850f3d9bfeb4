export * from "./definitions.js";
export * from "./instances.js";
export * from "./tokens.js";
export * from "./external.js";
export * from "./start-requests.js";
export * from "./schedules.js";
export * from "./object-keys.js";
export * from "./events.js";
