// The flags of `claude` that set up a chat's session (--model, --permission-mode…): what a chat
// sends in one configure command before its first prompt. Pure: scanned options in, the settings
// or a one-line usage error out. Flags that only a run can honour are refused, naming `harness run`.
import type { HarnessConfig } from "@harness/protocol";
import { MAX_TURNS, parseInteger } from "../parse-integer.ts";
import { type OptionSpec, takesNext } from "../scan-options.ts";

type Options = Record<string, string | true | string[]>;

export const CHAT_SESSION_OPTIONS: OptionSpec = {
  "--model": { key: "model", value: true },
  "--permission-mode": { key: "permissionMode", value: true },
  "--dangerously-skip-permissions": { key: "skipPermissions", value: false },
  "--system-prompt": { key: "systemPrompt", value: true, empty: true },
  "--system-prompt-file": { key: "systemPromptFile", value: true },
  "--effort": { key: "effort", value: true },
  "--max-turns": { key: "maxTurns", value: true },
};

/** `claude`'s flags that a session's configure cannot carry, nor a chat of its own its runs
 * (run-flags.ts): `harness run` takes them. */
export const RUN_ONLY_FLAGS = [
  "--agent", "--fallback-model", "--max-budget-usd", "--session-id", "--no-session-persistence",
  "--permission-prompt-tool", "--json-schema", "--output-format", "--input-format", "--include-partial-messages",
  "--max-thinking-tokens", "--allow-dangerously-skip-permissions", "--debug", "-d", "--debug-file", "--debug-to-stderr", "-d2e",
];

/** The first of `args` (before `--`, values of `spec`'s options skipped) that only a run takes. */
export function runOnlyFlag(args: readonly string[], spec: OptionSpec): string | undefined {
  for (let i = 0; i < args.length && args[i] !== "--"; i++) {
    const flag = args[i].split("=")[0];
    if (RUN_ONLY_FLAGS.includes(flag)) return flag;
    if (!args[i].includes("=") && takesNext(spec[flag], args[i + 1])) i++;
  }
  return undefined;
}

export function runOnlyMessage(flag: string): string {
  const debug = DEBUG_FLAGS.includes(flag) ? "; a chat of its own writes its runners' debug log with HARNESS_DEBUG=1 harness (or a filter: HARNESS_DEBUG=api,hooks)" : "";
  return `${flag} is not one a chat can take (a session's settings are its model, permission mode, system prompt, effort and max turns): harness run takes it, as harness run ${flag} … "<prompt>"${debug}`;
}

/** The flags of a run's debug log: a chat's is HARNESS_DEBUG (see chat/local.ts). */
const DEBUG_FLAGS = ["--debug", "-d", "--debug-file", "--debug-to-stderr", "-d2e"];

/** The efforts of the wire protocol; `claude`'s xhigh lies between high and max. */
const EFFORTS = ["low", "medium", "high", "max"] as const;
export const XHIGH_NOTE = "--effort xhigh: the models here take low, medium, high or max; running at high, the highest level below xhigh (as claude does on models without xhigh)";

/** The effort `text` names, with the note to print when it is not taken as given; or an error. */
export function parseEffort(text: string): { effort: (typeof EFFORTS)[number]; note?: string } | string {
  if (text === "xhigh") return { effort: "high", note: XHIGH_NOTE };
  const effort = EFFORTS.find((level) => level === text);
  return effort ? { effort } : `--effort must be one of ${EFFORTS.join(", ")} (or xhigh), not "${text}"`;
}

/** `planMode`: the chat starts in plan mode (a chat of its own's: see modes.ts). */
export type ChatSettings = { config: HarnessConfig; systemPromptFile?: string; notes: string[]; planMode?: true };

/** The session's settings the scanned `options` name (an empty config for none), or what is wrong.
 * `local`: the chat has a server of its own, whose runs it can start in plan mode. */
export function takeChatSessionFlags(options: Options, local = false): ChatSettings | string {
  const config: HarnessConfig = {};
  const notes: string[] = [];
  let planMode = false;
  if (typeof options.model === "string") config.model = options.model;
  if (typeof options.permissionMode === "string") {
    const mode = chatMode(options.permissionMode);
    if ("error" in mode) return mode.error;
    if (mode.mode === "plan" && !local) return `--permission-mode plan: ${PLAN_NEEDS_OWN_CHAT}`;
    if (mode.mode === "plan") planMode = true;
    else config.permissionMode = mode.mode;
  }
  if (options.skipPermissions) {
    if (planMode || (config.permissionMode !== undefined && config.permissionMode !== "fullAuto")) {
      return `--dangerously-skip-permissions and --permission-mode ${options.permissionMode} cannot go together`;
    }
    config.permissionMode = "fullAuto";
  }
  if (typeof options.systemPrompt === "string" && typeof options.systemPromptFile === "string") {
    return "--system-prompt and --system-prompt-file cannot go together: give one of them";
  }
  if (typeof options.systemPrompt === "string") config.systemPrompt = options.systemPrompt;
  if (typeof options.effort === "string") {
    const effort = parseEffort(options.effort);
    if (typeof effort === "string") return effort;
    config.effort = effort.effort;
    if (effort.note) notes.push(effort.note);
  }
  if (typeof options.maxTurns === "string") {
    const n = parseInteger("--max-turns", options.maxTurns, 1, MAX_TURNS);
    if (typeof n === "string") return n;
    config.maxTurns = n;
  }
  return { config, notes, ...(typeof options.systemPromptFile === "string" && { systemPromptFile: options.systemPromptFile }), ...(planMode && { planMode: true as const }) };
}

/** Why a chat on a shared server has no plan mode, and what to use instead. */
export const PLAN_NEEDS_OWN_CHAT =
  `a chat on a shared server has no plan mode (a session's settings keep only the modes default, acceptEdits and bypassPermissions); for plan mode, start a chat of its own on the project: harness chat --local --permission-mode plan (or harness --permission-mode plan), or plan once with harness run --permission-mode plan "<prompt>"`;

function chatMode(given: string): { mode: NonNullable<HarnessConfig["permissionMode"]> | "plan" } | { error: string } {
  switch (given) {
    case "default":
    case "acceptEdits":
    case "fullAuto":
    case "plan":
      return { mode: given };
    case "bypassPermissions":
      return { mode: "fullAuto" };
    case "dontAsk":
      return { error: `--permission-mode dontAsk cannot be set on a chat's session, where you answer each approval: harness run refuses what would need approval, as dontAsk does` };
    default:
      return { error: `--permission-mode must be one of default, acceptEdits, bypassPermissions, plan, dontAsk, not "${given}"` };
  }
}
