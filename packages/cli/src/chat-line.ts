// What a line typed into `harness chat` asks for. Pure: the line and the session's state in, an
// action out. The chat's own commands start with "/"; any other line (other slash commands too,
// which are the agent's: skills and .claude/commands) is a prompt, or steers the run under way.
import type { HarnessCommand, HarnessState } from "@harness/protocol";
import { oneLine } from "./render.ts";

export type ChatAction =
  | { kind: "send"; command: HarnessCommand }
  | { kind: "quit" }
  | { kind: "help" }
  | { kind: "none" }
  /** Lines for the user only (a list to choose from). */
  | { kind: "info"; text: string }
  /** The line cannot be acted on: `message` says why, in one line. */
  | { kind: "error"; message: string };

export const CHAT_MODES = ["default", "acceptEdits", "fullAuto"] as const;

export const CHAT_HELP = `Type a prompt and press Enter; while a run is under way, a line steers it.
  /cancel                 cancel the run under way (Ctrl-C does too)
  /approve [N]            let the call waiting for approval run (N: which, when several wait)
  /deny [N] [reason]      refuse it; the reason goes to the agent
  /mode default|acceptEdits|fullAuto
                          the permission mode from the next model call on
  /model ID               the model from the next model call on
  /rewind [N]             list the prompts; with N, put the conversation and the files back
                          to how they were before prompt N
  /quit                   leave (Ctrl-D too); a run under way goes on in the session
Other lines starting with "/" go to the agent (its skills and slash commands).
`;

/** Whether a run is under way in `state` (a line then steers it). */
export function runUnderWay(state: HarnessState | undefined): boolean {
  return state?.status === "running" || state?.status === "awaiting-approval";
}

/** The pending approval `which` names (its number from 1, or its tool call id), or the only one. */
function pickApproval(state: HarnessState | undefined, which: string | undefined, verb: string): { toolCallId: string } | { error: string } {
  const pending = state?.pendingApprovals ?? [];
  if (pending.length === 0) return { error: "no call is waiting for approval" };
  if (which === undefined) {
    if (pending.length === 1) return pending[0];
    return { error: `${pending.length} calls are waiting for approval: say which, /${verb} 1 to /${verb} ${pending.length}` };
  }
  const byId = pending.find((p) => p.toolCallId === which);
  if (byId) return byId;
  const n = /^\d+$/.test(which) ? Number(which) : NaN;
  if (n >= 1 && n <= pending.length) return pending[n - 1];
  return { error: `no call waiting for approval is "${which}": use a number from 1 to ${pending.length}` };
}

export function parseChatLine(line: string, state: HarnessState | undefined): ChatAction {
  const text = line.trim();
  if (!text) return { kind: "none" };
  const [word, ...rest] = text.split(/\s+/);
  const arg = rest.join(" ");
  switch (word) {
    case "/quit":
    case "/exit":
      return { kind: "quit" };
    case "/help":
      return { kind: "help" };
    case "/cancel":
      if (!runUnderWay(state)) return { kind: "error", message: "no run is under way" };
      return { kind: "send", command: { type: "cancel" } };
    case "/approve": {
      if (rest.length > 1) return { kind: "error", message: "/approve takes at most one argument: which call" };
      const picked = pickApproval(state, rest[0], "approve");
      if ("error" in picked) return { kind: "error", message: picked.error };
      return { kind: "send", command: { type: "approve", toolCallId: picked.toolCallId } };
    }
    case "/deny": {
      // "/deny 2 reason" names the call (by id, or by a number that one of them has); "/deny
      // reason" the only one waiting. With several waiting, a number is always taken for a call.
      const pending = state?.pendingApprovals ?? [];
      const first = rest[0];
      const byId = first !== undefined && pending.some((p) => p.toolCallId === first);
      const byNumber = first !== undefined && /^\d+$/.test(first) && (pending.length > 1 || first === "1");
      const names = byId || byNumber;
      const picked = pickApproval(state, names ? first : undefined, "deny");
      if ("error" in picked) return { kind: "error", message: picked.error };
      const reason = (names ? rest.slice(1) : rest).join(" ");
      return { kind: "send", command: { type: "deny", toolCallId: picked.toolCallId, ...(reason && { reason }) } };
    }
    case "/mode": {
      const mode = CHAT_MODES.find((m) => m === arg);
      if (!mode) return { kind: "error", message: `/mode takes one of ${CHAT_MODES.join(", ")}${arg ? `, not "${arg}"` : ""}` };
      return { kind: "send", command: { type: "configure", config: { permissionMode: mode } } };
    }
    case "/rewind":
      return rewindTo(state, rest);
    case "/model":
      if (!arg || rest.length > 1) return { kind: "error", message: "/model takes one model id, e.g. /model claude-sonnet-4-5" };
      return { kind: "send", command: { type: "configure", config: { model: arg } } };
    default:
      return runUnderWay(state) ? { kind: "send", command: { type: "steer", message: text } } : { kind: "send", command: { type: "submit", prompt: text } };
  }
}

/** `/rewind`: the prompts to choose from; `/rewind N`: back to before prompt N (files too). */
function rewindTo(state: HarnessState | undefined, args: string[]): ChatAction {
  const prompts = (state?.messages ?? []).filter((m) => m.role === "user");
  if (prompts.length === 0) return { kind: "error", message: "nothing to rewind: the session has no prompt yet" };
  if (args.length === 0) {
    const list = prompts.map((m, i) => `  ${String(i + 1).padStart(String(prompts.length).length)}  ${oneLine(m.content, 70)}`);
    return { kind: "info", text: [`/rewind N puts the conversation and the files back to how they were before prompt N:`, ...list].join("\n") };
  }
  const n = args.length === 1 && /^\d+$/.test(args[0]) ? Number(args[0]) : NaN;
  if (!(n >= 1 && n <= prompts.length)) return { kind: "error", message: `/rewind takes the number of a prompt, from 1 to ${prompts.length} (/rewind alone lists them)` };
  if (runUnderWay(state)) return { kind: "error", message: "a run is under way: /cancel it, or wait for it to end, before rewinding" };
  return { kind: "send", command: { type: "rewind", messageId: prompts[n - 1].id } };
}
