import type { SandboxPolicy } from "../sandbox/policy.ts";

/** Claude Code's permission modes.
 * - default: read-only tools run; edits, commands, web fetches and unknown tools ask.
 * - acceptEdits: also file edits (and mkdir/touch/mv/cp/tee) inside the working directories.
 * - plan: nothing that writes or runs commands (beyond the read-only set) until the plan is accepted.
 * - bypassPermissions: everything runs, except what a deny or ask rule covers.
 * - dontAsk: like default, but whatever would ask is denied instead. */
export type PermissionMode = "default" | "acceptEdits" | "plan" | "bypassPermissions" | "dontAsk";

export const PERMISSION_MODES = ["default", "acceptEdits", "plan", "bypassPermissions", "dontAsk"] as const satisfies readonly PermissionMode[];

/** A parsed rule: `Tool` (every use of the tool) or `Tool(specifier)`. */
export type Rule = {
  tool: string;
  /** Absent for a tool-wide rule (`Bash`, `Bash()`, `Bash(*)`). */
  specifier?: string;
};

/** A rule as the decision function uses it: the parsed rule, its text, and where it came from. */
export type PermissionRule = Rule & {
  /** The rule as written, e.g. `Bash(npm test:*)`. Decisions name it. */
  text: string;
  /** Base directory of `/path` patterns: the project root for project, local and managed settings;
   * `<home>/.claude` for user settings. */
  root: string;
  /** Where the rule was written (a settings file path), for messages. */
  source?: string;
};

export type PermissionRules = {
  allow: readonly PermissionRule[];
  ask: readonly PermissionRule[];
  deny: readonly PermissionRule[];
};

export type PermissionContext = {
  mode: PermissionMode;
  rules: PermissionRules;
  /** Absolute working directory: relative paths and `./` patterns start here. */
  cwd: string;
  /** Where relative paths in a call's arguments (file tools' paths, a command's words) start
   * instead: the agent's shell directory, where Bash's `cd` left it. Rules' patterns still start
   * at `cwd`, and the working directories stay what they are. */
  toolCwd?: string;
  /** Absolute home directory: `~/` in paths and patterns. */
  home: string;
  /** Absolute directories that count as working directories besides `cwd`. */
  additionalDirectories: readonly string[];
  /** A sub-agent's calls: it has no ExitPlanMode, so in plan mode it reports instead of planning. */
  subagent?: boolean;
  /** The settings forbid bypassPermissions (disableBypassPermissionsMode): it is never entered. */
  bypassDisabled?: boolean;
  /** The run may be switched to bypassPermissions (it started in it, or was started with
   * --allow-dangerously-skip-permissions): an approval's setMode to it is refused otherwise. */
  bypassAvailable?: boolean;
  /** Only the managed settings' rules count (allowManagedPermissionRulesOnly): skills' and
   * commands' allowed-tools add none. */
  managedRulesOnly?: boolean;
  /** The run's sandbox, when the settings turn it on: a Bash command it runs needs no approval
   * unless a rule says otherwise (SandboxPolicy.autoAllow). */
  sandbox?: SandboxPolicy;
  /** Absolute paths the host keeps from the file tools but for `cwd` and its temporary directory
   * inside them, whatever the mode, rules or approvals (a server's data directory: see
   * host-hidden.ts). */
  hostHidden?: readonly string[];
  /** With `hostHidden`: the workspace's settings files and hook scripts are closed to the file
   * tools too. Default: when `sandbox` is set (see host-hidden.ts). */
  settingsLocked?: boolean;
  /** The run's auto memory directory (context/auto-memory.ts), when auto memory is on: the file
   * tools read and write in it without asking, as Claude Code's do; deny and ask rules still apply. */
  autoMemoryDir?: string;
};

export type ToolCall = { name: string; input: Record<string, unknown> };

export type PermissionBehavior = "allow" | "ask" | "deny";

export type PermissionDecision = {
  behavior: PermissionBehavior;
  /** One or two sentences a user or the model can act on; names the rule or mode that decided. */
  reason: string;
  /** The text of the rule that decided, when a rule did. */
  rule?: string;
  /** A deny that dontAsk made of an ask (an ask rule's among them): the mode refused, not a deny rule. */
  dontAsk?: true;
};
