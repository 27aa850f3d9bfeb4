export * from "./connection-limits.js";
