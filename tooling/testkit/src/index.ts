export * from "./http.js";
export * from "./server.js";
export * from "./upstream.js";
