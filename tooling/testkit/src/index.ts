export * from "./database.js";
export * from "./gate.js";
export * from "./http.js";
export * from "./listening-process.js";
export * from "./poll.js";
export * from "./private-postgres.js";
export { holdToContract } from "./response-contract.js";
export * from "./server.js";
export * from "./upstream.js";
