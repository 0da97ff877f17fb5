export { runHooks, selectHooks } from "./run-hooks.ts";
export { parseHooksConfig, mergeHooksConfigs } from "./parse-config.ts";
export { compileMatcher } from "./matcher.ts";
export { DEFAULT_HOOK_TIMEOUT_SECONDS, HOOK_EVENT_NAMES } from "./types.ts";
export type {
  CallbackHook,
  CommandHook,
  Hook,
  HookEvaluation,
  HookEvaluator,
  HttpHook,
  PromptHook,
  HookDiagnostic,
  HookEventName,
  HookInput,
  HookInputFor,
  HookMatcherGroup,
  HookResult,
  HookRunResult,
  HookObserver,
  ObservedHook,
  HooksConfig,
  NotificationInput,
  PermissionDecision,
  PostToolUseInput,
  PreCompactInput,
  PreToolUseInput,
  RunHooksOptions,
  SessionEndInput,
  SessionStartInput,
  StopInput,
  SubagentStopInput,
  UserPromptSubmitInput,
} from "./types.ts";
