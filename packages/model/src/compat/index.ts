export { CompatTooLarge } from "./budget.js";
export {
  blockersOn,
  changedAddresses,
  compareDefinitions,
  type UpgradeGate,
  upgradeBlockers,
  upgradeGates,
} from "./compare.js";
export {
  type CompatChange,
  type CompatIssue,
  type CompatMember,
  type CompatReport,
  type CompatStatus,
  excuseMembers,
  onlyOnOneSide,
} from "./report.js";
export { isSubschema, type SubschemaIssue, type SubschemaOptions, type SubschemaResult } from "./subschema.js";
