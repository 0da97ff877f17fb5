export { decide } from "./decide.ts";
export { describeCall } from "./describe-call.ts";
export { parseRule, ruleText, toPermissionRules } from "./parse-rule.ts";
export { deniedFileFilter, pathDecision } from "./path-access.ts";
export type { PathAccess, PathAccessOptions } from "./path-access.ts";
export { parseShell } from "./shell-parse.ts";
export type { Redirect, ShellParse, SimpleCommand, Word } from "./shell-types.ts";
export { PERMISSION_MODES } from "./types.ts";
export type {
  PermissionBehavior,
  PermissionContext,
  PermissionDecision,
  PermissionMode,
  PermissionRule,
  PermissionRules,
  Rule,
  ToolCall,
} from "./types.ts";
