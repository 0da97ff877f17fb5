import { randomUUID } from "node:crypto";
import { combineEffects } from "./combine.ts";
import { hookDebug } from "./debug-lines.ts";
import { interpretHookRun } from "./hook-output.ts";
import { TOOL_EVENTS, callMeetsIf } from "./if-condition.ts";
import type { IfScope } from "./if-condition.ts";
import { compileMatcher, matchTarget } from "./matcher.ts";
import { runCallbackHook } from "./callback-hook.ts";
import { runHttpHook } from "./http-hook.ts";
import { runPromptHook } from "./prompt-hook.ts";
import { spawnHook } from "./spawn-hook.ts";
import { DEFAULT_AGENT_HOOK_TIMEOUT_SECONDS, DEFAULT_HOOK_TIMEOUT_SECONDS, DEFAULT_PROMPT_HOOK_TIMEOUT_SECONDS } from "./types.ts";
import type { AsyncHookReport, Hook, HookCondition, HookEventName, HookInputFor, HookResult, HookRunResult, HooksConfig, ObservedHook, RunHooksOptions } from "./types.ts";

/** The hooks of `event` whose matcher selects `input` and whose `if`, if any, its tool call meets
 * (see callMeetsIf; `scope.cwd` stands in for an input without one), in configuration order, each
 * once: the same command, URL, or prompt of the same type, with the same `if`, in two groups that
 * both match runs once. */
export function selectHooks<E extends HookEventName>(config: HooksConfig, event: E, input: HookInputFor<E>, scope?: IfScope): Hook[] {
  return [...selectWithMatchers(config, event, input, scope).keys()];
}

/** selectHooks' hooks, each with the matcher of the first group that selected it (undefined for a
 * group without one). */
function selectWithMatchers<E extends HookEventName>(config: HooksConfig, event: E, input: HookInputFor<E>, scope?: IfScope): Map<Hook, string | undefined> {
  const groups = config[event];
  if (!groups || groups.length === 0) return new Map();
  const target = matchTarget(input);
  const selected = new Map<string, { hook: Hook; matcher: string | undefined }>();
  for (const group of groups) {
    if (target !== undefined && !matches(group.matcher, target)) continue;
    for (const hook of group.hooks) {
      if (hook.type !== "callback" && hook.if !== undefined && !meetsIf(hook.if, input, scope)) continue;
      const key = identityOf(hook);
      if (!selected.has(key)) selected.set(key, { hook, matcher: group.matcher });
    }
  }
  return new Map([...selected.values()].map(({ hook, matcher }) => [hook, matcher]));
}

/** What makes two hooks the same: the same command (and environment of its own, as two plugins'
 * give theirs), URL, or prompt of the same type, with the same `if`. */
export function identityOf(hook: Hook): string {
  if (hook.type === "callback") return `callback\0${hook.id}`;
  const condition = hook.if === undefined ? "" : `\0if\0${hook.if.text}`;
  if (hook.type === "command") return (hook.env ? `command\0${hook.command}\0${JSON.stringify(hook.env)}` : `command\0${hook.command}`) + condition;
  if (hook.type === "http") return `http\0${hook.url}${condition}`;
  return `${hook.type}\0${hook.prompt}${condition}`;
}

/** Whether the tool call of `input` meets `condition`; never on an event about no tool call. */
function meetsIf(condition: HookCondition, input: HookInputFor<HookEventName>, scope: IfScope | undefined): boolean {
  if (!TOOL_EVENTS.has(input.hook_event_name) || !("tool_name" in input)) return false;
  const cwd = input.cwd ?? scope?.cwd ?? process.cwd();
  return callMeetsIf(condition, { name: input.tool_name, input: input.tool_input }, { cwd, projectDir: scope?.projectDir ?? cwd, ...(scope?.home !== undefined && { home: scope.home }) });
}

/** Runs every hook of `event` that matches `input`, all at the same time, and combines what they
 * say (see HookResult). Each gets `input` as JSON: a command hook on its stdin, running as `bash -c
 * command` in `opts.projectDir` with CLAUDE_PROJECT_DIR set, killed with every process it started
 * when its timeout passes or `opts.signal` fires; an http hook as its request's body; a prompt or
 * agent hook in its model's question. Never rejects; resolves at once when nothing matches. */
export async function runHooks<E extends HookEventName>(
  config: HooksConfig,
  event: E,
  input: HookInputFor<E>,
  opts: RunHooksOptions,
): Promise<HookResult> {
  const ran = opts.onceRan;
  const matchers = selectWithMatchers(config, event, input, { cwd: opts.cwd, projectDir: opts.projectDir });
  const selected = [...matchers.keys()];
  const hooks = ran ? selected.filter((hook) => !(hook.once && ran.has(identityOf(hook)))) : selected;
  if (hooks.length === 0) return combineEffects([], []);
  if (ran) for (const hook of hooks) if (hook.once) ran.add(identityOf(hook));
  const stdin = JSON.stringify({ ...input, cwd: input.cwd ?? opts.cwd, hook_event_name: event });
  const env = { ...process.env, ...opts.env, CLAUDE_PROJECT_DIR: opts.projectDir };
  const target = matchTarget(input);
  const watch = watcher(opts, event, target === undefined || target === "" ? event : `${event}:${target}`, matchers);
  const logged = hookDebug(event, target);
  // Every hook runs through here, waited for or not: told to the observer and the debug log alike.
  const start = (hook: Hook, signal: AbortSignal) => {
    const ended = watch(hook);
    return runOne(hook, event, stdin, env, opts, signal).then(logged).then(ended);
  };
  for (const hook of hooks) if (hook.type === "command" && hook.async) void start(hook, backgroundSignal(opts)).then((run) => reportAsync(event, run, opts));
  const waited = hooks.filter((hook) => hook.type !== "command" || !hook.async);
  const runs = await Promise.all(waited.map((hook) => start(hook, opts.signal)));
  return combineEffects(runs, runs.map((run) => interpretHookRun(event, run)));
}

/** What ends an async command hook: the background's signal. One started once that has fired (a
 * SessionEnd hook, as the session ends) runs to its end or its timeout all the same, unheard:
 * killed at once, it would never run at all. */
function backgroundSignal(opts: RunHooksOptions): AbortSignal {
  const lifetime = opts.background?.signal;
  return lifetime && !lifetime.aborted ? lifetime : new AbortController().signal;
}

/** What an async command hook said, to `opts.background`, once it has ended: it can no longer
 * block, so what would have blocked is a message for the user. */
function reportAsync(event: HookEventName, run: HookRunResult, opts: RunHooksOptions): void {
  const effect = interpretHookRun(event, run);
  const report: AsyncHookReport = { event, userMessages: effect.userMessages };
  const refused = effect.block ?? (effect.permission?.decision === "deny" ? effect.permission.reason : undefined);
  if (refused !== undefined) report.userMessages.push(`${event} hook \`${run.command}\` (async) said no, after the fact: ${refused}`);
  if (effect.additionalContext !== undefined) report.context = effect.additionalContext;
  if (report.context !== undefined || report.userMessages.length > 0) opts.background?.done(report);
}

/** Tells `opts.observe` that a hook of `event` starts, now; the function it returns tells that it
 * ended with a run, and gives the run back. Without an observer, nothing is told. */
function watcher(opts: RunHooksOptions, event: HookEventName, name: string, matchers: ReadonlyMap<Hook, string | undefined>): (hook: Hook) => (run: HookRunResult) => HookRunResult {
  const observer = opts.observe;
  if (!observer) return () => (run) => run;
  return (hook) => {
    const matcher = matchers.get(hook);
    const seen: ObservedHook = { id: randomUUID(), event, name, type: hook.type, ...(matcher !== undefined && matcher !== "" && { matcher }) };
    quietly(() => observer.started(seen));
    return (run) => {
      quietly(() => observer.ended(seen, run));
      return run;
    };
  };
}

function quietly(tell: () => void): void {
  try {
    tell();
  } catch {
    // An observer's failure is no hook's.
  }
}

/** Runs one hook of any kind with `input`, within its time limit (its `timeout`, else its kind's
 * default), until `signal` fires. Never rejects. */
function runOne(hook: Hook, event: HookEventName, input: string, env: NodeJS.ProcessEnv, opts: RunHooksOptions, signal: AbortSignal): Promise<HookRunResult> {
  const fallback = hook.type === "agent" ? DEFAULT_AGENT_HOOK_TIMEOUT_SECONDS : hook.type === "prompt" ? DEFAULT_PROMPT_HOOK_TIMEOUT_SECONDS : DEFAULT_HOOK_TIMEOUT_SECONDS;
  const timeoutMs = (hook.timeout ?? fallback) * 1000;
  if (hook.type === "command") return spawnHook(hook.command, input, { cwd: opts.projectDir, env: hook.env ? { ...env, ...hook.env } : env, timeoutMs, signal });
  if (hook.type === "callback") return runCallbackHook(hook, input, { timeoutMs, signal });
  if (hook.type === "http") return runHttpHook(hook, input, { env, networkEnv: opts.networkEnv ? { ...process.env, ...opts.networkEnv } : env, timeoutMs, signal });
  return runPromptHook(hook, event, input, { ...(opts.evaluate && { evaluate: opts.evaluate }), timeoutMs, signal });
}

function matches(pattern: string | undefined, target: string): boolean {
  try {
    return compileMatcher(pattern)(target);
  } catch {
    // parseHooksConfig reports invalid patterns; one that slips through selects nothing.
    return false;
  }
}
