export * from "./action-spec.js";
