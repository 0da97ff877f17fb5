import { z } from "zod";
import { TOOL_EVENTS, parseIfCondition } from "./if-condition.ts";
import { compileMatcher } from "./matcher.ts";
import { HOOK_EVENT_NAMES, VERDICT_EVENTS } from "./types.ts";
import type { CommandHook, Hook, HookCondition, HookDiagnostic, HookEventName, HookMatcherGroup, HooksConfig, HttpHook, PromptHook } from "./types.ts";
import { isJsonObject } from "../config/json-text.ts";

const eventNames: ReadonlySet<string> = new Set(HOOK_EVENT_NAMES);
const GROUP_KEYS = new Set(["matcher", "hooks"]);
const COMMAND_KEYS = new Set(["type", "command", "if", "timeout", "async", "once"]);
const HTTP_KEYS = new Set(["type", "url", "headers", "allowedEnvVars", "if", "timeout", "once"]);
const PROMPT_KEYS = new Set(["type", "prompt", "model", "if", "timeout", "once"]);
const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
/** RFC 9110's token. */
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

const commandSchema = z
  .string({ error: "must be a non-empty string" })
  .trim()
  .min(1, "must be a non-empty string")
  .refine((command) => !command.includes("\0"), "must not hold a NUL character (no program can be given one)");
const promptSchema = z.string({ error: "must be a non-empty string" }).trim().min(1, "must be a non-empty string");
const timeoutSchema = z.number({ error: "must be a positive number of seconds" }).positive("must be a positive number of seconds");

/** `kept`: the hook is still loaded (HookDiagnostic.kept). */
type Report = (key: string, message: string, kept?: "kept") => void;

/** Validates the `hooks` value of a settings file. Never throws: every problem becomes a diagnostic
 * naming `file` and the key (`hooks.PreToolUse[0].hooks[1].timeout`), and everything valid still
 * loads. An invalid entry is dropped; a bad `timeout` falls back to the default and an unknown key
 * is ignored, so that a guard hook with a small mistake keeps running; a bad `if` drops its hook
 * (see ifOf). */
export function parseHooksConfig(raw: unknown, file: string): { config: HooksConfig; diagnostics: HookDiagnostic[] } {
  const diagnostics: HookDiagnostic[] = [];
  const report: Report = (key, message, kept) => diagnostics.push({ file, key, message, ...(kept && { kept: true as const }) });
  const config: HooksConfig = {};
  if (raw === undefined || raw === null) return { config, diagnostics };
  if (!isJsonObject(raw)) {
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
    const parsed = groups.flatMap((group, i) => parseGroup(group, `${key}[${i}]`, event as HookEventName, report));
    if (parsed.length > 0) config[event as HookEventName] = parsed;
  }
  return { config, diagnostics };
}

/** The `hooks` of a file's frontmatter (an agent file's, a SKILL.md's): the hooks that parse, none
 * when there are none, and each problem said as one the `owner` ("agent", "skill") loads without. */
export function frontmatterHooks(raw: unknown, file: string, owner: string): { config?: HooksConfig; diagnostics: HookDiagnostic[] } {
  if (raw === undefined || raw === null) return { diagnostics: [] };
  const parsed = parseHooksConfig(raw, file);
  const diagnostics = parsed.diagnostics.map((d) => ({ ...d, message: `${d.message}; the ${owner} loads without it` }));
  return Object.keys(parsed.config).length > 0 ? { config: parsed.config, diagnostics } : { diagnostics };
}

/** Hooks that run in a sub-agent (an agent file's, a forked skill's): their Stop hooks fire when it
 * stops, which is SubagentStop to the settings' hooks, as in Claude Code. Moved once parsed, so
 * that a mistake in one is named as the file has it (hooks.Stop[0]…). */
export function asSubagentHooks(config: HooksConfig): HooksConfig {
  const { Stop, ...rest } = config;
  return Stop ? { ...rest, SubagentStop: [...(rest.SubagentStop ?? []), ...Stop] } : rest;
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

function parseGroup(group: unknown, key: string, event: HookEventName, report: Report): HookMatcherGroup[] {
  if (!isJsonObject(group)) {
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
  const parsed = hooks.flatMap((hook, i) => parseHook(hook, `${key}.hooks[${i}]`, event, report));
  if (parsed.length === 0) return [];
  return [matcher === undefined ? { hooks: parsed } : { matcher, hooks: parsed }];
}

function parseHook(hook: unknown, key: string, event: HookEventName, report: Report): Hook[] {
  if (!isJsonObject(hook)) {
    report(key, `must be an object such as { "type": "command", "command": "..." }, got ${describe(hook)}`);
    return [];
  }
  if (hook.type === "command") return parseCommandHook(hook, key, event, report);
  if (hook.type === "http") return parseHttpHook(hook, key, event, report);
  if (hook.type === "prompt" || hook.type === "agent") return parsePromptHook(hook, hook.type, key, event, report);
  const message =
    typeof hook.type === "string"
      ? `hooks of type "${hook.type}" are not supported; the types are "command", "http", "prompt" and "agent"`
      : `must be "command", "http", "prompt" or "agent", got ${describe(hook.type)}`;
  report(`${key}.type`, message);
  return [];
}

function parseCommandHook(hook: Record<string, unknown>, key: string, event: HookEventName, report: Report): CommandHook[] {
  const command = commandSchema.safeParse(hook.command);
  if (!command.success) {
    report(`${key}.command`, `${command.error.issues[0]?.message ?? "is invalid"}, got ${describe(hook.command)}`);
    return [];
  }
  reportUnknownKeys(hook, COMMAND_KEYS, key, report);
  const condition = ifOf(hook, key, event, report);
  if (!condition) return [];
  const parsed: CommandHook = { type: "command", command: hook.command as string, ...condition, ...timeoutOf(hook, key, report) };
  if (hook.async === true) parsed.async = true;
  else if (hook.async !== undefined && hook.async !== false) report(`${key}.async`, `must be true or false, got ${describe(hook.async)}; the hook runs in the foreground`, "kept");
  return [{ ...parsed, ...onceOf(hook, key, report) }];
}

function parseHttpHook(hook: Record<string, unknown>, key: string, event: HookEventName, report: Report): HttpHook[] {
  const url = urlProblem(hook.url);
  if (url) {
    report(`${key}.url`, url);
    return [];
  }
  reportUnknownKeys(hook, HTTP_KEYS, key, report);
  const condition = ifOf(hook, key, event, report);
  if (!condition) return [];
  const parsed: HttpHook = { type: "http", url: hook.url as string, ...condition };
  if (hook.headers !== undefined) {
    const headers = headersProblem(hook.headers);
    if (headers) {
      report(`${key}.headers`, `${headers}; the hook is not run`);
      return [];
    }
    parsed.headers = hook.headers as Record<string, string>;
  }
  if (hook.allowedEnvVars !== undefined) {
    const names = hook.allowedEnvVars;
    if (!Array.isArray(names) || !names.every((name) => typeof name === "string" && ENV_NAME.test(name))) {
      report(`${key}.allowedEnvVars`, `must be a list of environment variable names such as ["API_TOKEN"], got ${describe(names)}; the hook is not run`);
      return [];
    }
    parsed.allowedEnvVars = names as string[];
  }
  return [{ ...parsed, ...timeoutOf(hook, key, report), ...onceOf(hook, key, report) }];
}

function parsePromptHook(hook: Record<string, unknown>, type: "prompt" | "agent", key: string, event: HookEventName, report: Report): PromptHook[] {
  if (!VERDICT_EVENTS.has(event)) {
    report(`${key}.type`, `${type} hooks decide whether something may go on, and run only on ${[...VERDICT_EVENTS].join(", ")}; on ${event} use a command or http hook`);
    return [];
  }
  const prompt = promptSchema.safeParse(hook.prompt);
  if (!prompt.success) {
    report(`${key}.prompt`, `${prompt.error.issues[0]?.message ?? "is invalid"}, got ${describe(hook.prompt)}`);
    return [];
  }
  reportUnknownKeys(hook, PROMPT_KEYS, key, report);
  const condition = ifOf(hook, key, event, report);
  if (!condition) return [];
  const parsed: PromptHook = { type, prompt: prompt.data, ...condition };
  if (hook.model !== undefined) {
    if (typeof hook.model === "string" && hook.model.trim()) parsed.model = hook.model.trim();
    else report(`${key}.model`, `must be a model name such as "haiku" or "claude-sonnet-4-6", got ${describe(hook.model)}; the default model is used`, "kept");
  }
  return [{ ...parsed, ...timeoutOf(hook, key, report), ...onceOf(hook, key, report) }];
}

/** `{ if }`, parsed, when the hook gives a rule that parses, `{}` when it gives none; undefined,
 * after a diagnostic, when its `if` is no rule or is on an event that is not about a tool call.
 * Such a hook is dropped rather than run without its `if`: a guard (exit 2 on PreToolUse) meant
 * for some calls would otherwise block every call its matcher selects. */
function ifOf(hook: Record<string, unknown>, key: string, event: HookEventName, report: Report): { if?: HookCondition } | undefined {
  if (hook.if === undefined) return {};
  const condition = parseIfCondition(hook.if);
  if ("problem" in condition) {
    report(`${key}.if`, `${condition.problem}; the hook is not run, rather than run for every call its matcher selects`);
    return undefined;
  }
  if (!TOOL_EVENTS.has(event)) {
    report(`${key}.if`, `is only evaluated on events about a tool call (${[...TOOL_EVENTS].join(", ")}); on ${event} a hook with "if" never runs, so it is not loaded`);
    return undefined;
  }
  return { if: condition };
}

/** `{ once: true }` when the hook says so; anything but a boolean is reported and ignored. */
function onceOf(hook: Record<string, unknown>, key: string, report: Report): { once?: true } {
  if (hook.once === true) return { once: true };
  if (hook.once !== undefined && hook.once !== false) report(`${key}.once`, `must be true or false, got ${describe(hook.once)}; the hook runs every time`, "kept");
  return {};
}

/** `{ timeout }` when the hook gives a valid one; a bad one is reported and the default applies. */
function timeoutOf(hook: Record<string, unknown>, key: string, report: Report): { timeout?: number } {
  if (hook.timeout === undefined) return {};
  const timeout = timeoutSchema.safeParse(hook.timeout);
  if (timeout.success) return { timeout: timeout.data };
  report(`${key}.timeout`, `${timeout.error.issues[0]?.message ?? "is invalid"}, got ${describe(hook.timeout)}; the default applies`, "kept");
  return {};
}

function urlProblem(value: unknown): string | undefined {
  if (typeof value !== "string" || !value.trim()) return `must be an http or https URL such as "http://localhost:8080/hooks", got ${describe(value)}`;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return `is not a URL: ${describe(value)}`;
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") return `must be an http or https URL, got ${describe(value)}`;
  return undefined;
}

function headersProblem(value: unknown): string | undefined {
  if (!isJsonObject(value)) return `must be an object of header names and values, got ${describe(value)}`;
  for (const [name, text] of Object.entries(value)) {
    if (!HEADER_NAME.test(name)) return `"${name}" is not a valid header name`;
    if (typeof text !== "string") return `the value of "${name}" must be a string, got ${describe(text)}`;
    if (/[\r\n\0]/.test(text)) return `the value of "${name}" must not hold a line break or a NUL character`;
  }
  return undefined;
}

function reportUnknownKeys(value: Record<string, unknown>, known: ReadonlySet<string>, key: string, report: Report): void {
  for (const name of Object.keys(value)) {
    if (!known.has(name)) report(`${key}.${name}`, `unknown key "${name}" is ignored; expected one of: ${[...known].join(", ")}`, "kept");
  }
}

function describe(value: unknown): string {
  if (value === undefined) return "nothing";
  if (value === null) return "null";
  if (Array.isArray(value)) return "a list";
  if (typeof value === "string") return JSON.stringify(value);
  if (typeof value === "object") return "an object";
  return `${typeof value} ${String(value)}`;
}
