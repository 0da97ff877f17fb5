// What a line typed into `harness chat` asks for. Pure: the line and the session's state in, an
// action out. The chat's own commands start with "/"; a line starting with "!" is a command for
// the session's shell (bash mode); any other line (other slash commands too, which are the
// agent's: skills and .claude/commands) is a prompt, or steers the run under way.
import { bashModePrompt, isBuiltinCommandPrompt, shellsListing, shellStatusText, type BackgroundShellInfo, type HarnessCommand, type HarnessState } from "@harness/protocol";
import { oneLine } from "../display/render.ts";
import { PLAN_ANSWER } from "./plan.ts";
import { claudeOnly } from "./claude-commands.ts";

export type ChatAction =
  /** `said`: what the chat tells the user it did, when nothing else on the screen will. */
  | { kind: "send"; command: HarnessCommand; said?: string }
  | { kind: "quit" }
  | { kind: "help" }
  /** /vim: vim mode of the prompt on or off (chat/vim/editor.ts). */
  | { kind: "vim" }
  | { kind: "none" }
  /** Lines for the user only (a list to choose from). */
  | { kind: "info"; text: string }
  /** /resume and /rename, which the chat answers through the server's REST API (resume.ts);
   * `arg`: the rest of the line, trimmed. */
  | { kind: "session"; verb: "resume" | "rename"; arg: string }
  /** The line cannot be acted on: `message` says why, in one line. */
  | { kind: "error"; message: string };

export const CHAT_MODES = ["default", "acceptEdits", "fullAuto"] as const;

/** The chat's own commands (after "/"), which parseChatLine acts on. */
export const CHAT_COMMANDS = ["quit", "exit", "help", "commands", "cancel", "approve", "deny", "mode", "rewind", "model", "resume", "rename", "vim"] as const;

export const CHAT_HELP = `Type a prompt and press Enter; while a run is under way, a line steers it.
While a call waits for approval: y (or yes) lets it run, n (or no) [reason] refuses it; a plan
is answered 1 (approve, edits accepted automatically), 2 (approve, each edit asked) or 3 [feedback].
At a terminal, Up and Down recall the prompts typed, those of earlier chats in this directory too;
Ctrl+R searches them (Enter sends the match, Tab or Esc puts it on the line, Ctrl+G leaves it).
Tab completes a command after "/" and a path of the project after "@" (a Tab that adds nothing
lists the choices). A line ending in \\ (or Alt+Enter, or Ctrl+J) goes on to a new line of the
prompt; Ctrl+G opens the prompt in $VISUAL or $EDITOR, and puts what it saves back on the line.
Ctrl+O shows tool calls whole (verbose output) or, pressed again, as excerpts; Ctrl+T shows the
todo list the agent keeps; Ctrl+B moves a running Bash call to the background, the run going on.
  /cancel                 cancel the run under way (Esc and Ctrl+C do too)
  /approve [N]            let the call waiting for approval run (N: which, when several wait)
  /deny [N] [reason]      refuse it; the reason goes to the agent
  /mode default|acceptEdits|bypassPermissions|plan
                          the permission mode from the next model call on (Shift+Tab cycles
                          them); plan (a chat of its own's, from the next prompt): the model
                          reads and plans, and changes nothing until you approve its plan
  /model [ID]             the model from the next model call on; without ID, the current
                          model and those one can switch to
  /commands               the agent's own commands: its skills, slash commands, MCP prompts, plugins
  /rewind [N]             list the prompts; with N, put the conversation and the files back
                          to how they were before prompt N
  /resume [N|ID]          list the sessions, newest first; with N (as listed) or a session's
                          id, go on in that session instead, without leaving
  /rename [TITLE]         name this session, as the lists of sessions show it; without TITLE,
                          its name now
  !COMMAND                run COMMAND in the session's project, without the model (bash
                          mode): its output is shown, and the model sees both with the next
                          prompt; the permission rules and the sandbox hold as for the Bash tool
  /tasks [kill ID]        the background shells (id, command, status, running time): those
                          the agent started and the commands moved there with Ctrl+B; kill ID
                          stops one (/bashes too)
  /vim                    vim mode of the prompt on or off, for this chat (Esc: normal mode)
  /exit, /quit            leave (Ctrl+D too); a run under way goes on in the session
Other lines starting with "/" go to the agent: its skills and slash commands,
  /init (write a CLAUDE.md for the project), /review, /compact [instructions] (summarise the
  conversation so far) and /clear (start it afresh),
  and its reports /context /cost /mcp /memory /agents /hooks /status /todos /export [file]
  /permissions /add-dir, answered without the model (/commands lists them). Claude Code's
  commands the chat has no counterpart of (/config, /terminal-setup…) say what to use here instead.
`;

/** The keys of a chat at a terminal, which "?" on an empty line lists (as Claude Code's does). */
export const CHAT_KEYS = `Keys:
  Enter                   send the prompt (while a run is under way: steer it)
  Alt+Enter, Ctrl+J       a new line of the prompt (as \\ before Enter; Shift+Enter too, where
                          the terminal tells it apart)
  Esc, Ctrl+C             cancel the run under way; with none, Ctrl+C clears the line (twice:
                          leave)
  Esc Esc                 clear the prompt; on an empty one, list the prompts to /rewind to
  Shift+Tab               the next permission mode
  Ctrl+B                  move the running Bash call to the background; the run goes on
  Up, Down, Ctrl+R        recall and search the prompts typed
  Tab                     complete a /command or an @path
  Ctrl+G                  edit the prompt in $VISUAL or $EDITOR
  Ctrl+S                  stash the prompt; it comes back once the next one is sent
  Ctrl+O                  verbose output on or off
  Ctrl+T                  the todo list
  Ctrl+V                  attach the clipboard's image as [Image #1] (a local chat; a pasted
                          path of an image file too)
  Ctrl+L                  clear the screen
  Ctrl+_                  undo the last edit of the line
  Ctrl+D                  leave (on an empty line)
  /vim                    vim mode on or off: Esc for normal mode, i a o… to insert
  !COMMAND                run COMMAND in the project (bash mode); /help lists the commands
`;

/** Whether a run is under way in `state` (a line then steers it). */
export function runUnderWay(state: HarnessState | undefined): boolean {
  return state?.status === "running" || state?.status === "awaiting-approval";
}

/** The numbers the calls waiting for approval are shown with, by tool call id. */
export type ApprovalNumbers = ReadonlyMap<string, number>;

/** Numbers for the calls waiting for approval that stay true on the screen: a call keeps the number
 * it was shown with while the others are answered (so "/approve 2" never reaches the call shown as
 * 3), and the numbers start again from 1 once no call waits. An answered call's number stays taken
 * until then: naming it says it no longer waits instead of picking another call. */
export function createApprovalNumbering(): { update(state: HarnessState): ApprovalNumbers } {
  const numbers = new Map<string, number>();
  return {
    update(state) {
      const pending = state.pendingApprovals ?? [];
      if (pending.length === 0) numbers.clear();
      let next = Math.max(0, ...numbers.values()) + 1;
      for (const p of pending) if (!numbers.has(p.toolCallId)) numbers.set(p.toolCallId, next++);
      return numbers;
    },
  };
}

/** The numbers of the calls waiting in `state` counted from 1, for a chat that showed no others. */
function countedFromOne(state: HarnessState | undefined): ApprovalNumbers {
  return new Map((state?.pendingApprovals ?? []).map((p, i) => [p.toolCallId, i + 1]));
}

/** The pending approval `which` names (its number, or its tool call id), or the only one. */
function pickApproval(state: HarnessState | undefined, numbers: ApprovalNumbers, which: string | undefined, verb: string): { toolCallId: string } | { error: string } {
  const pending = state?.pendingApprovals ?? [];
  if (pending.length === 0) return { error: "no call is waiting for approval" };
  const waiting = pending.map((p) => numbers.get(p.toolCallId)).filter((n) => n !== undefined);
  const choices = waiting.map((n) => `/${verb} ${n}`).join(", ");
  if (which === undefined) {
    if (pending.length === 1) return pending[0];
    return { error: `${pending.length} calls are waiting for approval: say which, ${choices}` };
  }
  const byId = pending.find((p) => p.toolCallId === which);
  if (byId) return byId;
  const n = /^\d+$/.test(which) ? Number(which) : NaN;
  const byNumber = pending.find((p) => numbers.get(p.toolCallId) === n);
  if (byNumber) return byNumber;
  if ([...numbers.values()].includes(n)) return { error: `call ${n} no longer waits for approval (it was answered); waiting: ${choices}` };
  return { error: `no call waiting for approval is "${which}": waiting: ${choices}` };
}

/** `numbers`: how the calls waiting for approval were shown (default: counted from 1). `agent`: the
 * names of the agent's own commands, where the chat read them (those the state says are added). */
export function parseChatLine(line: string, state: HarnessState | undefined, numbers: ApprovalNumbers = countedFromOne(state), agent: readonly string[] = []): ChatAction {
  const text = line.trim();
  if (!text) return { kind: "none" };
  if (text.startsWith("!")) return bashMode(text.slice(1).trim(), state);
  const [word, ...rest] = text.split(/\s+/);
  const arg = rest.join(" ");
  switch (word) {
    case "/quit":
    case "/exit":
      return { kind: "quit" };
    case "/help":
      return { kind: "help" };
    case "/vim":
      if (rest.length > 0) return { kind: "error", message: "/vim takes nothing after it: it turns vim mode on or off" };
      return { kind: "vim" };
    case "/commands":
      // The agent knows its commands (they come from the session's workspace and settings): its
      // own /help answers without a model call.
      if (runUnderWay(state)) return { kind: "error", message: "a run is under way: /commands lists the agent's commands once it ends" };
      return { kind: "send", command: { type: "submit", prompt: "/help" } };
    case "/cancel":
      if (!runUnderWay(state)) return { kind: "error", message: "no run is under way" };
      return { kind: "send", command: { type: "cancel" } };
    case "/approve": {
      if (rest.length > 1) return { kind: "error", message: "/approve takes at most one argument: which call" };
      const picked = pickApproval(state, numbers, rest[0], "approve");
      if ("error" in picked) return { kind: "error", message: picked.error };
      return { kind: "send", command: { type: "approve", toolCallId: picked.toolCallId } };
    }
    case "/deny": {
      // "/deny 2 reason" names the call (by id, or by a number that one of them was shown with);
      // "/deny reason" the only one waiting. With several waiting, a number is always taken for a
      // call, and so is the number of one answered already.
      const pending = state?.pendingApprovals ?? [];
      const first = rest[0];
      const byId = first !== undefined && pending.some((p) => p.toolCallId === first);
      const shown = first !== undefined && /^\d+$/.test(first) && [...numbers.values()].includes(Number(first));
      const byNumber = first !== undefined && /^\d+$/.test(first) && (pending.length > 1 || shown || first === "1");
      const names = byId || byNumber;
      const picked = pickApproval(state, numbers, names ? first : undefined, "deny");
      if ("error" in picked) return { kind: "error", message: picked.error };
      const reason = (names ? rest.slice(1) : rest).join(" ");
      return { kind: "send", command: { type: "deny", toolCallId: picked.toolCallId, ...(reason && { reason }) } };
    }
    case "/mode": {
      // bypassPermissions is Claude Code's name for fullAuto, as --permission-mode takes it.
      const mode = CHAT_MODES.find((m) => m === (arg === "bypassPermissions" ? "fullAuto" : arg));
      if (!mode) return { kind: "error", message: `/mode takes one of default, acceptEdits, bypassPermissions (or fullAuto)${arg ? `, not "${arg}"` : ""}` };
      return { kind: "send", command: { type: "configure", config: { permissionMode: mode } } };
    }
    case "/rewind":
      return rewindTo(state, rest);
    case "/resume":
      if (arg && runUnderWay(state)) return { kind: "error", message: "a run is under way: /cancel it, or wait for it to end, before /resume switches sessions" };
      return { kind: "session", verb: "resume", arg };
    case "/rename":
      return { kind: "session", verb: "rename", arg: text.slice(word.length).trim() };
    case "/tasks":
    case "/bashes":
      // Between runs the agent, which keeps the background shells, lists them (and kills one)
      // without a model call; while a run goes on, the state's `shells` (which the run keeps up to
      // date) are listed here, and a kill goes to the run. A kill of a shell the state shows
      // running is a kill-shell at any time: between runs the session stops it on its runner.
      if (runUnderWay(state)) return shellsMidRun(word.slice(1), rest, state);
      if (rest.length === 2 && rest[0] === "kill") {
        const shell = state?.shells?.find((s) => s.id === rest[1] && s.status === "running");
        if (shell) return killing(shell);
      }
      return { kind: "send", command: { type: "submit", prompt: text.trim() } };
    case "/model":
      // Without an id, the agent lists the current model and those one can switch to.
      if (rest.length === 0) {
        if (runUnderWay(state)) return { kind: "error", message: "a run is under way: /model lists the models once it ends" };
        return { kind: "send", command: { type: "submit", prompt: "/model" } };
      }
      if (rest.length > 1) return { kind: "error", message: "/model takes one model id, e.g. /model claude-sonnet-4-5" };
      return { kind: "send", command: { type: "configure", config: { model: arg } } };
    default: {
      const instead = claudeOnly(word, [...agent, ...(state?.available?.slashCommands ?? [])]);
      if (instead) return { kind: "info", text: `(${word}: ${instead})` };
      if (state?.pendingApprovals?.length && !word.startsWith("/")) return answerOldest(state.pendingApprovals, numbers, word.toLowerCase(), arg);
      return runUnderWay(state) ? { kind: "send", command: { type: "steer", message: text } } : { kind: "send", command: { type: "submit", prompt: text } };
    }
  }
}

/** `!command`: run in the session's workspace by its runner, as the agent's Bash calls are. */
function bashMode(command: string, state: HarnessState | undefined): ChatAction {
  if (!command) return { kind: "error", message: "! takes a command to run in the project, e.g. !git status" };
  if (runUnderWay(state)) return { kind: "error", message: "a run is under way: a ! command runs once it ends (or /cancel it first)" };
  return { kind: "send", command: { type: "submit", prompt: bashModePrompt(command) } };
}

/** The words that answer a call waiting for approval: one allows it, the other denies it. */
const ALLOW_WORDS = ["y", "yes"];
const DENY_WORDS = ["n", "no"];

/** Whether `line`, typed while calls wait in `state`, answers one rather than being a prompt: y or
 * n [reason], or a plan's 1, 2 or 3 (plan.ts). */
export function answersApproval(line: string, state: HarnessState | undefined): boolean {
  if (!state?.pendingApprovals?.length) return false;
  const word = line.trim().split(/\s+/, 1)[0].toLowerCase();
  return ALLOW_WORDS.includes(word) || DENY_WORDS.includes(word) || PLAN_ANSWER.test(line);
}

/** A line typed while calls wait for approval answers the oldest of them: y/yes allows it, n/no
 * [reason] denies it. Any other text is refused rather than steered: a steer is read at the next
 * model call, which only comes once the call is answered, so it would sit unseen while the user
 * waits for the call to go on. */
function answerOldest(pending: NonNullable<HarnessState["pendingApprovals"]>, numbers: ApprovalNumbers, word: string, reason: string): ChatAction {
  const allow = ALLOW_WORDS.includes(word);
  if (!allow && !DENY_WORDS.includes(word)) {
    return { kind: "error", message: "a call waits for approval: y to allow it, n [reason] to deny it (or /cancel the run); then type your message" };
  }
  if (allow && reason) return { kind: "error", message: `"${word}" takes nothing after it: y alone allows the call; n [reason] denies it` };
  const oldest = pending[0];
  const number = pending.length > 1 ? `${numbers.get(oldest.toolCallId) ?? 1}, ` : "";
  const more = pending.length > 1 ? `; ${pending.length - 1} more wait${pending.length > 2 ? "" : "s"}` : "";
  const what = `${number}${oneLine(oldest.toolName, 40)}: ${oneLine(oldest.description, 70)}`;
  if (allow) return { kind: "send", command: { type: "approve", toolCallId: oldest.toolCallId }, said: `(allowed ${what}${more})` };
  return {
    kind: "send",
    command: { type: "deny", toolCallId: oldest.toolCallId, ...(reason && { reason }) },
    said: `(denied ${what}${reason ? "; the reason goes to the agent" : ""}${more})`,
  };
}

/** `/rewind`: the prompts to choose from; `/rewind N`: back to before prompt N (files too). */
function rewindTo(state: HarnessState | undefined, args: string[]): ChatAction {
  // The built-ins answered without the model (/cost, /compact …) are no prompt to go back to, nor a
  // steer (it joined a run under way: the server refuses a rewind to it).
  const prompts = (state?.messages ?? []).filter((m) => m.role === "user" && !m.steer && !isBuiltinCommandPrompt(m.content));
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

/** /tasks while a run is under way: the state's shells, or a kill-shell of one that runs. */
function shellsMidRun(name: string, args: readonly string[], state: HarnessState | undefined): ChatAction {
  const shells = state?.shells ?? [];
  if (args.length === 0) return { kind: "info", text: shellsListing(shells, name) };
  if (args[0] !== "kill" || args.length !== 2) return { kind: "error", message: `/${name} takes nothing, or kill <id> to stop a background shell, not "${args.join(" ")}"` };
  const shell = shells.find((s) => s.id === args[1]);
  if (!shell) return { kind: "error", message: `no background shell "${args[1]}": /${name} lists them` };
  if (shell.status !== "running") return { kind: "error", message: `background shell ${shell.id} is not running (${shellStatusText(shell)}): nothing to kill` };
  return killing(shell);
}

function killing(shell: BackgroundShellInfo): ChatAction {
  return { kind: "send", command: { type: "kill-shell", shellId: shell.id }, said: `(stopping background shell ${shell.id}: ${shell.command})` };
}
