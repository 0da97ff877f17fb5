import { combineEffects } from "./combine.ts";
import { interpretHookRun } from "./hook-output.ts";
import { compileMatcher, matchTarget } from "./matcher.ts";
import { spawnHook } from "./spawn-hook.ts";
import { DEFAULT_HOOK_TIMEOUT_SECONDS } from "./types.ts";
import type { CommandHook, HookEventName, HookInputFor, HookResult, HooksConfig, RunHooksOptions } from "./types.ts";

/** The hooks of `event` whose matcher selects `input`, in configuration order, each command once. */
export function selectHooks<E extends HookEventName>(config: HooksConfig, event: E, input: HookInputFor<E>): CommandHook[] {
  const groups = config[event];
  if (!groups || groups.length === 0) return [];
  const target = matchTarget(input);
  const selected = new Map<string, CommandHook>();
  for (const group of groups) {
    if (target !== undefined && !matches(group.matcher, target)) continue;
    for (const hook of group.hooks) if (!selected.has(hook.command)) selected.set(hook.command, hook);
  }
  return [...selected.values()];
}

/** Runs every hook of `event` that matches `input`, all at the same time, and combines what they
 * say (see HookResult). Each hook gets `input` as JSON on stdin and runs as `bash -c command` in
 * `opts.projectDir` with CLAUDE_PROJECT_DIR set; it is killed, with every process it started, when
 * its timeout passes or `opts.signal` fires. Never rejects; resolves at once when nothing matches. */
export async function runHooks<E extends HookEventName>(
  config: HooksConfig,
  event: E,
  input: HookInputFor<E>,
  opts: RunHooksOptions,
): Promise<HookResult> {
  const hooks = selectHooks(config, event, input);
  if (hooks.length === 0) return combineEffects([], []);
  const stdin = JSON.stringify({ ...input, cwd: input.cwd ?? opts.cwd, hook_event_name: event });
  const env = { ...process.env, ...opts.env, CLAUDE_PROJECT_DIR: opts.projectDir };
  const runs = await Promise.all(
    hooks.map((hook) =>
      spawnHook(hook.command, stdin, {
        cwd: opts.projectDir,
        env,
        timeoutMs: (hook.timeout ?? DEFAULT_HOOK_TIMEOUT_SECONDS) * 1000,
        signal: opts.signal,
      }),
    ),
  );
  return combineEffects(runs, runs.map((run) => interpretHookRun(event, run)));
}

function matches(pattern: string | undefined, target: string): boolean {
  try {
    return compileMatcher(pattern)(target);
  } catch {
    // parseHooksConfig reports invalid patterns; one that slips through selects nothing.
    return false;
  }
}
