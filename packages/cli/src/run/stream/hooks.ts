// The hooks the Claude Agent SDK registers in its initialize request: per event, matchers with the
// ids of callbacks that live in the program, and whether a failed one blocks (onFailure). Each
// becomes a callback hook of the run, which asks the program with a `hook_callback` control request
// and reads its answer as a command hook's JSON output (packages/agent/src/hooks/callback-hook.ts).
import { isJsonObject } from "@harness/agent/json-text";
import { compileMatcher, HOOK_EVENT_NAMES, type HookEventName, type HookMatcherGroup, type HooksConfig } from "@harness/agent";
import { describeValue } from "../describe-value.ts";
import type { ControlChannel } from "./control.ts";

/** Asks the program a control request (the session's bound channel). */
export type Ask = ControlChannel["ask"];

/** Matcher fields the SDK may send that are not acted on here (it leaves them out of its types). */
const NOT_ACTED_ON = ["contextOnly", "replacedByFrame", "whenUnanswered"];

/** The hooks `given` (the initialize request's `hooks`) registers, the events it names that harness
 * does not fire (left out, to be said), and the matcher fields set that are not acted on ("hooks.
 * PreToolUse[0].contextOnly", to be said). Throws, naming the entry, on a malformed one. */
export function sdkHooks(given: unknown, ask: Ask): { hooks: HooksConfig; unknownEvents: string[]; ignoredFields: string[] } {
  if (!isJsonObject(given)) throw new Error(`initialize: hooks must be an object of events, not ${describeValue(given)}`);
  const hooks: HooksConfig = {};
  const unknownEvents: string[] = [];
  const ignoredFields: string[] = [];
  for (const [event, matchers] of Object.entries(given)) {
    if (!(HOOK_EVENT_NAMES as readonly string[]).includes(event)) {
      unknownEvents.push(event);
      continue;
    }
    if (!Array.isArray(matchers)) throw new Error(`initialize: hooks.${event} must be a list of matchers, not ${describeValue(matchers)}`);
    hooks[event as HookEventName] = matchers.map((matcher, i) => {
      const key = `hooks.${event}[${i}]`;
      if (isJsonObject(matcher)) ignoredFields.push(...NOT_ACTED_ON.filter((field) => matcher[field] !== undefined && matcher[field] !== null && matcher[field] !== false).map((field) => `${key}.${field}`));
      return group(matcher, key, ask);
    });
  }
  return { hooks, unknownEvents, ignoredFields };
}

function group(matcher: unknown, key: string, ask: Ask): HookMatcherGroup {
  if (!isJsonObject(matcher)) throw new Error(`initialize: ${key} must be an object with "hookCallbackIds", not ${describeValue(matcher)}`);
  const { matcher: pattern, hookCallbackIds: ids, timeout, onFailure } = matcher;
  if (pattern !== undefined && pattern !== null && typeof pattern !== "string") throw new Error(`initialize: ${key}.matcher must be a string, not ${describeValue(pattern)}`);
  if (typeof pattern === "string") {
    try {
      compileMatcher(pattern);
    } catch (error) {
      throw new Error(`initialize: ${key}.matcher is not a valid regular expression: ${(error as Error).message}`);
    }
  }
  if (!Array.isArray(ids) || !ids.every((id) => typeof id === "string" && id !== "")) throw new Error(`initialize: ${key}.hookCallbackIds must be a list of callback ids`);
  if (timeout !== undefined && timeout !== null && !(typeof timeout === "number" && timeout > 0)) throw new Error(`initialize: ${key}.timeout must be a positive number of seconds, not ${describeValue(timeout)}`);
  if (onFailure !== undefined && onFailure !== null && onFailure !== "continue" && onFailure !== "block") throw new Error(`initialize: ${key}.onFailure must be "continue" or "block", not ${describeValue(onFailure)}`);
  return {
    ...(typeof pattern === "string" && { matcher: pattern }),
    hooks: (ids as string[]).map((id) => ({
      type: "callback" as const,
      id,
      ...(typeof timeout === "number" && { timeout }),
      ...(onFailure === "block" && { onFailure }),
      call: (input, signal) => {
        const toolUseId = "tool_use_id" in input ? input.tool_use_id : undefined;
        return ask({ subtype: "hook_callback", callback_id: id, input, ...(toolUseId !== undefined && { tool_use_id: toolUseId }) }, signal);
      },
    })),
  };
}
