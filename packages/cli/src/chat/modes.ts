// The permission mode of `harness chat` as a Claude Code user switches it: Shift+Tab goes through
// default → acceptEdits → plan → default (bypass permissions joins when the chat started in it), the
// mode shows under the typed line when it is not the default, and /mode names one.
//
// The session's settings carry every mode but plan, which the wire's configure has no name for: a
// chat of its own (its server in this process) starts its runs in plan mode itself (PlanSwitch, read
// by its server at each query), and keeps the session's mode at default meanwhile, so that approving
// a plan with auto-accept (configure acceptEdits) is a change the run sees. A chat on a shared server
// cycles without plan mode. An approved plan ends plan mode: the next prompt goes in the mode the
// run went on in.
//
// Where any settings scope says permissions.disableBypassPermissionsMode "disable", bypass
// permissions is never offered, as in Claude Code: a chat started in it goes on in the default mode
// (as harness run does), the cycle leaves it out, and /mode refuses it.
import type { HarnessClient } from "@harness/client";
import type { HarnessCommand, HarnessConfig, HarnessState, HarnessToolCall, RunnerRunOptions } from "@harness/protocol";
import { PLAN_NEEDS_OWN_CHAT } from "./flags.ts";
import { CHAT_MODES, runUnderWay } from "./line.ts";
import { answerPlan, EXIT_PLAN_MODE } from "./plan.ts";

type WireMode = NonNullable<HarnessConfig["permissionMode"]>;
export type ChatMode = WireMode | "plan";

/** A chat of its own's plan mode: on, its server sends each query in plan mode. */
export type PlanSwitch = { on: boolean };

const INDICATORS: Record<ChatMode, string | undefined> = {
  default: undefined,
  acceptEdits: "⏵⏵ accept edits on (shift+tab to cycle)",
  plan: "⏸ plan mode on (shift+tab to cycle)",
  fullAuto: "⏵⏵ bypass permissions on (shift+tab to cycle)",
};

/** Why bypass permissions is not offered. */
export const BYPASS_OFF = "bypassPermissions is turned off by the settings (permissions.disableBypassPermissionsMode)";

/** Whether the settings the runs of a chat in `cwd` read (every scope's file; a chat of its own's
 * --settings and --setting-sources too) turn bypass permissions off. Settings that cannot be read
 * turn nothing off here: the run says what is wrong with them. */
export async function bypassTurnedOff(cwd: string, env: NodeJS.ProcessEnv, run?: Pick<RunnerRunOptions, "flagSettings" | "settingSources">): Promise<boolean> {
  const { loadRunSettings, runPlace } = await import("@harness/agent/run-settings");
  const place = await runPlace({ cwd, ...(env.HOME && { home: env.HOME }) });
  const loaded = await loadRunSettings({ cwd: place.cwd, ...(run?.flagSettings && { flagSettings: run.flagSettings }), ...(run?.settingSources && { settingSources: run.settingSources }) }, place);
  return loaded.locks.bypassDisabled;
}

/** The line under the typed one that says the mode; none for the default. */
export function modeIndicator(mode: ChatMode): string | undefined {
  return INDICATORS[mode];
}

/** The modes Shift+Tab goes through, in Claude Code's order. */
export function modeCycle(plan: boolean, bypass: boolean): ChatMode[] {
  return ["default", "acceptEdits", ...(plan ? ["plan" as const] : []), ...(bypass ? ["fullAuto" as const] : [])];
}

/** The mode after `mode` in `cycle`; one outside it (set with /mode) goes back to the first. */
export function nextMode(mode: ChatMode, cycle: readonly ChatMode[]): ChatMode {
  const at = cycle.indexOf(mode);
  return at === -1 ? cycle[0] : cycle[(at + 1) % cycle.length];
}

export type ChatModes = {
  current(): ChatMode;
  /** Shows the mode (once the typed line is drawn; then whenever it changes). */
  refresh(): void;
  /** Shift+Tab: the next mode of the cycle. */
  cycle(): void;
  /** Acts on a typed line that is the modes' (/mode plan, a numbered answer to a plan): undefined
   * for any other line, which the chat acts on as usual (a /mode that leaves plan mode included).
   * `sent`: the answer a piped chat waits to see settled before its next line. */
  line(text: string): { sent?: HarnessCommand } | undefined;
};

export type ChatModesOptions = {
  client: HarnessClient;
  /** Present in a chat of its own, whose runs can start in plan mode. */
  plan?: PlanSwitch;
  /** The chat started in bypass permissions, which then joins the cycle. */
  bypass: boolean;
  /** The settings turn bypass permissions off: it never joins the cycle, and /mode refuses it. */
  bypassOff?: boolean;
  send(command: HarnessCommand): boolean;
  note(text: string, tone?: "info" | "error"): void;
  /** The mode shown may have changed: `indicator` is the line to show under the typed one. */
  show(indicator: string | undefined): void;
};

export function createChatModes(o: ChatModesOptions): ChatModes {
  const wire = (): WireMode => o.client.state?.config?.permissionMode ?? "default";
  const current = (): ChatMode => (o.plan?.on ? "plan" : wire());
  let shown: string | undefined;
  const refresh = () => {
    const indicator = modeIndicator(current());
    if (indicator !== shown) o.show((shown = indicator));
  };
  /** The plans that waited for approval while the chat watched: one of them approved ends plan mode. */
  const plans = new Set<string>();
  /** Whether a run is under way, and whether it started in plan mode (then only a mode the session
   * takes anew, acceptEdits or bypass, reaches it: the default, which it is in already, does not). */
  let running = false;
  let planning = false;
  o.client.on("state", (state) => {
    const under = runUnderWay(state);
    if (under && !running) planning = o.plan?.on === true;
    running = under;
    if (o.plan?.on && planApproved(state, plans)) o.plan.on = planning = false;
    refresh();
  });
  /** Plan mode is left for `mode` while a run started in it is under way, which goes on planning. */
  const leftPlanning = (mode: ChatMode): boolean => {
    if (!running || !planning || mode !== "default") return false;
    o.note("(plan mode off from the next prompt on: the run under way goes on planning until you approve its plan)");
    return true;
  };
  /** The session's mode set to `mode`, when it is another. */
  const configure = (mode: WireMode): boolean => wire() === mode || o.send({ type: "configure", config: { permissionMode: mode } });
  const set = (mode: ChatMode) => {
    if (mode === "plan") {
      if (!o.plan) return o.note(`✗ /mode plan: ${PLAN_NEEDS_OWN_CHAT}`, "error");
      if (!configure("default")) return;
      o.plan.on = true;
      o.note("(plan mode from the next prompt on: the model reads and plans, and changes nothing until you approve its plan)");
    } else {
      const was = current();
      if (!configure(mode)) return;
      if (o.plan) o.plan.on = false;
      // A mode the session takes anew reaches the run under way, which leaves plan mode for it.
      if (mode !== "default") planning = false;
      if (was !== mode && !leftPlanning(mode)) o.note(`(permission mode ${mode} from the next model call on)`);
    }
    refresh();
  };
  return {
    current,
    refresh,
    cycle: () => set(nextMode(current(), modeCycle(o.plan !== undefined, o.bypass && !o.bypassOff))),
    line(text) {
      const words = text.trim().split(/\s+/);
      if (o.bypassOff && words[0] === "/mode" && words.length === 2 && (words[1] === "fullAuto" || words[1] === "bypassPermissions")) {
        return o.note(`✗ /mode ${words[1]}: ${BYPASS_OFF}`, "error"), {};
      }
      if (words[0] === "/mode" && words.length === 2 && words[1] === "plan") return set("plan"), {};
      // Another mode goes to the session as /mode does; plan mode ends with it.
      const named = words[1] === "bypassPermissions" ? "fullAuto" : words[1];
      if (words[0] === "/mode" && o.plan?.on && CHAT_MODES.some((mode) => mode === named)) {
        o.plan.on = false;
        refresh();
        return leftPlanning(named as ChatMode) ? {} : undefined;
      }
      const answer = answerPlan(text, o.client.state);
      if (!answer) return undefined;
      if (answer.kind === "send") {
        if (!o.send(answer.command)) return {};
        o.note(answer.said);
        return { sent: answer.command };
      }
      const approved: HarnessCommand = { type: "approve", toolCallId: answer.toolCallId };
      // Approved with auto-accept: the session's mode becomes acceptEdits, which the run takes as
      // the answer. A session already there would see no change: the plan is approved, and the
      // mode set again once the run has left plan mode (which goes to default).
      if (wire() === "acceptEdits") {
        if (!o.send(approved)) return {};
        void o.client
          .waitFor((state) => callEnded(state, answer.toolCallId))
          .then(() => o.send({ type: "configure", config: { permissionMode: "acceptEdits" } }), () => undefined);
      } else if (!configure("acceptEdits")) return {};
      if (o.plan) o.plan.on = planning = false;
      o.note("(plan approved: edits are accepted automatically)");
      refresh();
      return { sent: approved };
    },
  };
}

/** Whether one of `plans` (ExitPlanMode calls seen waiting, to which those waiting in `state` are
 * added) was approved: it ran. */
function planApproved(state: HarnessState, plans: Set<string>): boolean {
  for (const pending of state.pendingApprovals ?? []) if (pending.toolName === EXIT_PLAN_MODE) plans.add(pending.toolCallId);
  if (plans.size === 0) return false;
  for (const message of state.messages) {
    for (const call of message.toolCalls ?? []) {
      if (!plans.has(call.id) || !over(call)) continue;
      plans.delete(call.id);
      if (call.status === "complete") return true;
    }
  }
  return false;
}

/** Whether the call `id` is over. */
function callEnded(state: HarnessState, id: string): boolean {
  return state.messages.some((message) => message.toolCalls?.some((call) => call.id === id && over(call)));
}

/** Whether `call` is over: run, refused or failed. */
const over = (call: HarnessToolCall) => call.status !== "awaiting-approval" && call.status !== "running";

/** The rows under the typed line, handed to `show` as one text: the settings' status line, then
 * the mode. */
export function footerRows(show: (rows: string | undefined) => void): { statusLine(line: string | undefined): void; mode(line: string | undefined): void; vim(line: string | undefined): void } {
  let status: string | undefined;
  let mode: string | undefined;
  let vim: string | undefined;
  const update = () => {
    const rows = [status, vim, mode].filter((row) => row !== undefined);
    show(rows.length > 0 ? rows.join("\n") : undefined);
  };
  return {
    statusLine: (line) => ((status = line), update()),
    mode: (line) => ((mode = line), update()),
    vim: (line) => ((vim = line), update()),
  };
}
