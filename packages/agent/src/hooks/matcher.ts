import type { HookInput } from "./types.ts";

export type Matcher = (value: string) => boolean;

const matchAll: Matcher = () => true;
/** Plain names and `|`-separated lists of them are compared exactly; anything else is a regex. */
const PLAIN = /^[A-Za-z0-9_|]+$/;
const compiled = new Map<string, Matcher>();

/** Compiles a matcher the way Claude Code reads it: missing, `""` or `"*"` matches everything;
 * `Bash` or `Edit|Write` match those exact names; any other pattern is an unanchored, case-sensitive
 * JavaScript regular expression (`mcp__.*`, `^Notebook`). Throws on an invalid regex. */
export function compileMatcher(pattern: string | undefined): Matcher {
  if (pattern === undefined || pattern === "" || pattern === "*") return matchAll;
  const cached = compiled.get(pattern);
  if (cached) return cached;
  let matcher: Matcher;
  if (PLAIN.test(pattern)) {
    const names = new Set(pattern.split("|"));
    matcher = (value) => names.has(value);
  } else {
    const regex = new RegExp(pattern);
    matcher = (value) => regex.test(value);
  }
  compiled.set(pattern, matcher);
  return matcher;
}

/** The value an event's matchers select on, or undefined when every hook of the event applies. */
export function matchTarget(input: HookInput): string | undefined {
  switch (input.hook_event_name) {
    case "PreToolUse":
    case "PermissionRequest":
    case "PostToolUse":
    case "PostToolUseFailure":
    case "PermissionDenied":
      return input.tool_name;
    case "InstructionsLoaded":
      return input.load_reason;
    case "SessionStart":
      return input.source;
    case "SessionEnd":
      return input.reason;
    case "PreCompact":
    case "PostCompact":
      return input.trigger;
    case "Notification":
      return input.notification_type;
    case "SubagentStart":
    case "SubagentStop":
      return input.agent_type;
    case "StopFailure":
      return input.error_type;
    default:
      return undefined;
  }
}
