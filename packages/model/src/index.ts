export * from "./definition.js";
