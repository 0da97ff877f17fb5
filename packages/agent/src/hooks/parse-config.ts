import { z } from "zod";
import { compileMatcher } from "./matcher.ts";
import { HOOK_EVENT_NAMES } from "./types.ts";
import type { CommandHook, HookDiagnostic, HookEventName, HookMatcherGroup, HooksConfig } from "./types.ts";

const eventNames: ReadonlySet<string> = new Set(HOOK_EVENT_NAMES);
const GROUP_KEYS = new Set(["matcher", "hooks"]);
const HOOK_KEYS = new Set(["type", "command", "timeout"]);

const commandSchema = z
  .string({ error: "must be a non-empty string" })
  .trim()
  .min(1, "must be a non-empty string")
  .refine((command) => !command.includes("\0"), "must not hold a NUL character (no program can be given one)");
const timeoutSchema = z.number({ error: "must be a positive number of seconds" }).positive("must be a positive number of seconds");

type Report = (key: string, message: string) => void;

/** Validates the `hooks` value of a settings file. Never throws: every problem becomes a diagnostic
 * naming `file` and the key (`hooks.PreToolUse[0].hooks[1].timeout`), and everything valid still
 * loads. An invalid entry is dropped; a bad `timeout` falls back to the default and an unknown key
 * is ignored, so that a guard hook with a small mistake keeps running. */
export function parseHooksConfig(raw: unknown, file: string): { config: HooksConfig; diagnostics: HookDiagnostic[] } {
  const diagnostics: HookDiagnostic[] = [];
  const report: Report = (key, message) => diagnostics.push({ file, key, message });
  const config: HooksConfig = {};
  if (raw === undefined || raw === null) return { config, diagnostics };
  if (!isRecord(raw)) {
    report("hooks", `must be an object mapping hook event names to lists of matchers, got ${describe(raw)}`);
    return { config, diagnostics };
  }
  for (const [event, groups] of Object.entries(raw)) {
    const key = `hooks.${event}`;
    if (!eventNames.has(event)) {
      report(key, `unknown hook event "${event}"; supported events: ${HOOK_EVENT_NAMES.join(", ")}`);
      continue;
    }
    if (!Array.isArray(groups)) {
      report(key, `must be a list of { matcher, hooks } objects, got ${describe(groups)}`);
      continue;
    }
    const parsed = groups.flatMap((group, i) => parseGroup(group, `${key}[${i}]`, report));
    if (parsed.length > 0) config[event as HookEventName] = parsed;
  }
  return { config, diagnostics };
}

/** Hooks of several settings files together, in the order given: every scope's hooks run. */
export function mergeHooksConfigs(configs: readonly HooksConfig[]): HooksConfig {
  const merged: HooksConfig = {};
  for (const config of configs) {
    for (const event of HOOK_EVENT_NAMES) {
      const groups = config[event];
      if (groups && groups.length > 0) merged[event] = [...(merged[event] ?? []), ...groups];
    }
  }
  return merged;
}

function parseGroup(group: unknown, key: string, report: Report): HookMatcherGroup[] {
  if (!isRecord(group)) {
    report(key, `must be an object with "matcher" and "hooks", got ${describe(group)}`);
    return [];
  }
  reportUnknownKeys(group, GROUP_KEYS, key, report);
  const { matcher, hooks } = group;
  if (matcher !== undefined && typeof matcher !== "string") {
    report(`${key}.matcher`, `must be a string such as "Bash", "Edit|Write" or "mcp__.*", got ${describe(matcher)}`);
    return [];
  }
  if (matcher !== undefined) {
    try {
      compileMatcher(matcher);
    } catch (error) {
      report(`${key}.matcher`, `is not a valid regular expression: ${error instanceof Error ? error.message : String(error)}`);
      return [];
    }
  }
  if (!Array.isArray(hooks)) {
    report(`${key}.hooks`, `must be a list of { "type": "command", "command": "..." } objects, got ${describe(hooks)}`);
    return [];
  }
  const parsed = hooks.flatMap((hook, i) => parseHook(hook, `${key}.hooks[${i}]`, report));
  if (parsed.length === 0) return [];
  return [matcher === undefined ? { hooks: parsed } : { matcher, hooks: parsed }];
}

function parseHook(hook: unknown, key: string, report: Report): CommandHook[] {
  if (!isRecord(hook)) {
    report(key, `must be an object such as { "type": "command", "command": "..." }, got ${describe(hook)}`);
    return [];
  }
  if (hook.type !== "command") {
    const message =
      typeof hook.type === "string"
        ? `hooks of type "${hook.type}" are not supported; only "command" hooks run`
        : `must be "command", got ${describe(hook.type)}`;
    report(`${key}.type`, message);
    return [];
  }
  const command = commandSchema.safeParse(hook.command);
  if (!command.success) {
    report(`${key}.command`, `${command.error.issues[0]?.message ?? "is invalid"}, got ${describe(hook.command)}`);
    return [];
  }
  reportUnknownKeys(hook, HOOK_KEYS, key, report);
  if (hook.timeout === undefined) return [{ type: "command", command: hook.command as string }];
  const timeout = timeoutSchema.safeParse(hook.timeout);
  if (!timeout.success) {
    report(`${key}.timeout`, `${timeout.error.issues[0]?.message ?? "is invalid"}, got ${describe(hook.timeout)}; the default applies`);
    return [{ type: "command", command: hook.command as string }];
  }
  return [{ type: "command", command: hook.command as string, timeout: timeout.data }];
}

function reportUnknownKeys(value: Record<string, unknown>, known: ReadonlySet<string>, key: string, report: Report): void {
  for (const name of Object.keys(value)) {
    if (!known.has(name)) report(`${key}.${name}`, `unknown key "${name}" is ignored; expected one of: ${[...known].join(", ")}`);
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function describe(value: unknown): string {
  if (value === undefined) return "nothing";
  if (value === null) return "null";
  if (Array.isArray(value)) return "a list";
  if (typeof value === "string") return JSON.stringify(value);
  if (typeof value === "object") return "an object";
  return `${typeof value} ${String(value)}`;
}
