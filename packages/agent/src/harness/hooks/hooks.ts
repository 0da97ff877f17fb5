// The run's view of the hooks: the common input fields filled in, and what hooks tell the user
// turned into notices.
import { mergeHooksConfigs } from "../../hooks/parse-config.ts";
import type { HookEvaluator, HookEventName, HookInputFor, HookResult, HooksConfig, RunHooksOptions } from "../../hooks/types.ts";
import type { PermissionMode } from "../../permissions/types.ts";
import type { NoticeSink } from "../resources.ts";

type CommonField = "session_id" | "transcript_path" | "hook_event_name" | "cwd" | "permission_mode";
/** What an event's input holds besides the fields every event has. */
export type HookFields<E extends HookEventName> = Omit<HookInputFor<E>, CommonField>;

export type HookHost = {
  /** Whether any hook is configured for `event` (matchers aside). */
  has(event: HookEventName): boolean;
  /** Runs the hooks of `event`; their `userMessages` become warning notices. Never rejects. */
  run<E extends HookEventName>(event: E, fields: HookFields<E>, signal: AbortSignal): Promise<HookResult>;
  /** Adds hooks from now on (a skill's, once it is invoked), after those there are. */
  add(config: HooksConfig): void;
};

export type HookHostOptions = {
  config: HooksConfig;
  sessionId: string;
  projectDir: string;
  cwd: string;
  /** The permission mode hooks are told about, read as each event's hooks run (a run's mode can
   * change: a configure, an approved plan). */
  mode: () => PermissionMode;
  /** Added to the hooks' environment (the settings' `env`, over the run's). */
  env?: Record<string, string>;
  /** Where http hooks take the network variables from (RunHooksOptions.networkEnv). */
  networkEnv?: Record<string, string>;
  /** Awaited before the hooks of an event run their commands (RunAgentOptions.beforeChanges, which
   * runAgent makes never reject). */
  beforeCommands?: () => Promise<void>;
  /** The file SessionStart hooks are given as CLAUDE_ENV_FILE (tools/shell/session-env.ts). */
  sessionEnvFile?: () => string | undefined;
  /** Writes the conversation so far for the hooks and returns the file's path (`transcript_path`). */
  transcriptPath?: () => string;
  /** The sub-agent whose hooks these are: every input names it (agent_id, agent_type). */
  agent?: { id: string; type: string };
  /** The model behind prompt and agent hooks. */
  evaluate?: HookEvaluator;
  /** The run's model, as SessionStart hooks are told it. */
  model?: () => string;
  /** The `once` hooks that have run in this conversation, by identity: they do not run again. */
  onceFired?: Set<string>;
  /** Where async hooks report, and what ends them (RunHooksOptions.background). */
  background?: RunHooksOptions["background"];
  /** Told as each hook starts and ends (RunHooksOptions.observe). */
  observe?: RunHooksOptions["observe"];
  notice: NoticeSink;
};

const NO_HOOKS: HookResult = { blocked: false, additionalContext: [], continue: true, userMessages: [], results: [] };

/** A host with no hooks at all: for an agent hook's own sub-agent, whose calls would otherwise fire
 * the hooks that started it. */
export const NO_HOOK_HOST: HookHost = { has: () => false, run: async () => NO_HOOKS, add: () => {} };

export function createHookHost(o: HookHostOptions): HookHost {
  let config = o.config;
  const fired = o.onceFired ?? new Set<string>();
  const has = (event: HookEventName) => (config[event]?.length ?? 0) > 0;
  return {
    has,
    add(more) {
      config = mergeHooksConfigs([config, more]);
    },
    async run(event, fields, signal) {
      if (!has(event)) return NO_HOOKS;
      if (o.beforeCommands) await o.beforeCommands();
      const model = event === "SessionStart" ? o.model?.() : undefined;
      const input = { session_id: o.sessionId, transcript_path: o.transcriptPath?.() ?? "", cwd: o.cwd, permission_mode: o.mode(), ...(o.agent && { agent_id: o.agent.id, agent_type: o.agent.type }), hook_event_name: event, ...fields, ...(model && { model }) } as HookInputFor<typeof event>;
      const envFile = event === "SessionStart" ? o.sessionEnvFile?.() : undefined;
      const env = envFile === undefined ? o.env : { ...o.env, CLAUDE_ENV_FILE: envFile };
      // Imported once a hook is to run: the runners (command, http, prompt, callback) are no part of
      // a run without hooks, which starts sooner without them.
      const { runHooks } = await import("../../hooks/run-hooks.ts");
      const result = await runHooks(config, event, input, {
        projectDir: o.projectDir,
        cwd: o.cwd,
        signal,
        onceRan: fired,
        ...(env && { env }),
        ...(o.networkEnv && { networkEnv: o.networkEnv }),
        ...(o.evaluate && { evaluate: o.evaluate }),
        ...(o.background && { background: o.background }),
        ...(o.observe && { observe: o.observe }),
      });
      for (const message of result.userMessages) o.notice("warning", message);
      return result;
    },
  };
}

