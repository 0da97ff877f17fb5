// `harness chat` tells the user at a terminal when the session needs them and they seem away, as
// Claude Code does: when a run ends (finished, failed, or cancelled from elsewhere) or starts
// waiting for an answer (an approval, a plan). The channel is Claude Code's "preferredNotifChannel":
// a bell, iTerm2's OSC 9, kitty's OSC 99, or the OSC 777 notify that Ghostty (and others) take;
// "auto", the default, picks the terminal's own by TERM_PROGRAM, and nothing at a terminal it does
// not know, as Claude Code does.
//
// "Away": nothing typed in the chat for HARNESS_NOTIFY_AFTER_MS (5 s; a knob for tests), and the
// terminal not reporting itself focused (focus.ts). A run that ends sooner than that after the
// user's last key (the Enter that started it, say) was watched: nothing is sent. A wait that begins
// while the user is at the keys (or the terminal focused) is told once they are away, if it still
// waits.
// The message says what happened in a few words, never the prompt or a tool's input.
import { readJsonObjectFile } from "@harness/agent/json-object-file";
import { userConfigDir, userConfigFile } from "@harness/agent/user-config-dir";
import type { HarnessState } from "@harness/protocol";
import { join } from "node:path";
import { EXIT_PLAN_MODE } from "./plan.ts";
import { runUnderWay } from "./line.ts";

export const NOTIF_CHANNELS = ["auto", "terminal_bell", "iterm2", "iterm2_with_bell", "kitty", "ghostty", "notifications_disabled"] as const;
export type NotifChannel = (typeof NOTIF_CHANNELS)[number];
/** A channel that sends something: "auto" resolved, "notifications_disabled" and none left out. */
export type SendingChannel = Exclude<NotifChannel, "auto" | "notifications_disabled">;

export const DEFAULT_NOTIFY_AFTER_MS = 5_000;
/** How often a wait told nothing yet looks again whether a focused terminal lost its focus. */
const RECHECK_MS = 500;
const TITLE = "Harness";
const KEY = "preferredNotifChannel";

type Env = Readonly<Record<string, string | undefined>>;

/** The channel the user chose, and what is wrong with a choice that is none (said; "auto" then).
 * Read from the user's settings.json, else from .claude.json, where Claude Code's /config keeps
 * it (both in CLAUDE_CONFIG_DIR when set). A file that cannot be read is not this reader's to
 * report: the settings' and the MCP servers' loaders say so. */
export function readNotifChannel(home: string, env: Env): { channel: NotifChannel; problem?: string } {
  for (const file of [join(userConfigDir(home, env), "settings.json"), userConfigFile(home, env)]) {
    let value: unknown;
    try {
      value = readJsonObjectFile(file)?.value[KEY];
    } catch {
      continue;
    }
    if (value === undefined) continue;
    if (typeof value === "string" && (NOTIF_CHANNELS as readonly string[]).includes(value)) return { channel: value as NotifChannel };
    return { channel: "auto", problem: `${file}: "${KEY}" is ${JSON.stringify(value)}: it is one of ${NOTIF_CHANNELS.join(", ")}; the chat notifies as with auto` };
  }
  return { channel: "auto" };
}

/** The channel `channel` sends on at the terminal `env` describes; undefined: none. */
export function sendingChannel(channel: NotifChannel, env: Env): SendingChannel | undefined {
  if (channel === "notifications_disabled") return undefined;
  if (channel !== "auto") return channel;
  if (env.TERM_PROGRAM === "iTerm.app") return "iterm2";
  if (env.TERM_PROGRAM === "ghostty") return "ghostty";
  if (env.TERM_PROGRAM === "kitty" || env.TERM === "xterm-kitty" || env.KITTY_WINDOW_ID) return "kitty";
  if (env.TERM_PROGRAM === "Apple_Terminal") return "terminal_bell";
  return undefined;
}

/** HARNESS_NOTIFY_AFTER_MS, or the default with what is wrong with it. */
export function notifyAfterMs(env: Env): { ms: number; problem?: string } {
  const text = env.HARNESS_NOTIFY_AFTER_MS?.trim();
  if (!text) return { ms: DEFAULT_NOTIFY_AFTER_MS };
  if (/^\d{1,9}$/.test(text)) return { ms: Number(text) };
  return { ms: DEFAULT_NOTIFY_AFTER_MS, problem: `HARNESS_NOTIFY_AFTER_MS must be a whole number of milliseconds, got ${JSON.stringify(env.HARNESS_NOTIFY_AFTER_MS)}; the chat notifies after ${DEFAULT_NOTIFY_AFTER_MS} ms` };
}

let kittyIds = 0;

/** The most bytes GNU screen keeps of a string sequence (MAXSTR 768, less its NUL, since 4.2.1):
 * it prints what comes after as text. */
const SCREEN_STRING_BYTES = 767;

/** `sequence` through GNU screen's passthrough: DCS strings (`ESC P … ESC \`), whose contents screen
 * writes out as they are, each at most SCREEN_STRING_BYTES and cut between characters. */
function screenPassthrough(sequence: string): string {
  let out = "";
  let part = "";
  let bytes = 0;
  for (const char of sequence) {
    const size = Buffer.byteLength(char);
    if (bytes + size > SCREEN_STRING_BYTES) {
      out += `\x1bP${part}\x1b\\`;
      part = "";
      bytes = 0;
    }
    part += char;
    bytes += size;
  }
  return `${out}\x1bP${part}\x1b\\`;
}

/** The bytes that send `message` on `channel`. Under tmux an OSC goes through its passthrough (tmux
 * needs `allow-passthrough on` to hand it on); under GNU screen (STY) through screen's, ended by a
 * bell, as an ESC \ inside would end screen's string; a bell goes as it is, for the multiplexer's
 * own bell. */
export function notificationBytes(channel: SendingChannel, message: string, env: Env = {}): string {
  const text = message.replace(/[\x00-\x1f\x7f-\x9f]/g, " ");
  const osc = (body: string, end = "\x07") => {
    if (env.TMUX) return `\x1bPtmux;${`\x1b]${body}${end}`.replaceAll("\x1b", "\x1b\x1b")}\x1b\\`;
    if (env.STY) return screenPassthrough(`\x1b]${body}\x07`);
    return `\x1b]${body}${end}`;
  };
  switch (channel) {
    case "terminal_bell":
      return "\x07";
    case "iterm2":
      return osc(`9;${TITLE}: ${text}`);
    case "iterm2_with_bell":
      return osc(`9;${TITLE}: ${text}`) + "\x07";
    case "kitty": {
      // The title, then the body that completes the notification (d=0: more of it follows).
      const id = `harness-${process.pid}-${++kittyIds}`;
      return osc(`99;i=${id}:d=0;${TITLE}`, "\x1b\\") + osc(`99;i=${id}:p=body;${text}`, "\x1b\\");
    }
    case "ghostty":
      return osc(`777;notify;${TITLE};${text.replaceAll(";", ",")}`);
  }
}

/** How the run that just ended in `state` ended, in a few words. */
function ending(state: HarnessState): string {
  if (state.status === "error") return "the run failed";
  const last = state.messages.findLast((m) => m.role === "assistant");
  if (last?.status === "cancelled") return "the run was cancelled";
  if (last?.status === "error") return "the run failed";
  return "the run finished";
}

/** What a call waiting for an answer asks of the user, in a few words. */
function waiting(toolName: string): string {
  if (toolName === EXIT_PLAN_MODE) return "the plan waits for your decision";
  return `the run needs your approval for ${toolName.replace(/[^\w.:-]/g, "") || "a tool"}`;
}

export type Notifier = {
  /** A state of the session the chat shows (the first one is how things were when it joined). */
  update(state: HarnessState): void;
  /** The chat sent a cancel: the run's end is the user's doing, nothing to tell. */
  cancelledHere(): void;
  /** The chat switched sessions: the next state is a first one again. */
  reset(): void;
  close(): void;
};

/** Sends `write(bytes)` on `channel` when the session needs the user and they seem away: `quietMs()`
 * is how long since they last typed, `focused()` whether the terminal says it has the focus
 * (undefined: it has not said). */
export function startNotifier(o: {
  channel: SendingChannel;
  afterMs: number;
  env: Env;
  write(bytes: string): void;
  quietMs(): number;
  focused(): boolean | undefined;
}): Notifier {
  /** Calls seen waiting, by id; undefined until the first state. */
  let seen: Set<string> | undefined;
  let underWay = false;
  let cancelled = false;
  let latest: HarnessState | undefined;
  const timers = new Set<NodeJS.Timeout>();
  const away = () => o.focused() !== true && o.quietMs() >= o.afterMs;
  const send = (message: string) => o.write(notificationBytes(o.channel, message, o.env));
  /** Told now if the user is away, else as soon as they are (quiet long enough, the terminal's
   * focus out) while `still()`. */
  const whenAway = (message: string, still: () => boolean) => {
    if (!still()) return;
    if (away()) return send(message);
    const delay = o.focused() === true ? RECHECK_MS : o.afterMs - o.quietMs();
    const timer = setTimeout(() => {
      timers.delete(timer);
      whenAway(message, still);
    }, delay);
    timer.unref();
    timers.add(timer);
  };
  const clear = () => {
    for (const timer of timers) clearTimeout(timer);
    timers.clear();
  };
  return {
    update(state) {
      latest = state;
      const pending = state.pendingApprovals ?? [];
      const first = seen === undefined;
      const fresh = first ? [] : pending.filter((p) => !seen!.has(p.toolCallId));
      seen = new Set(pending.map((p) => p.toolCallId));
      const wasUnderWay = underWay;
      underWay = runUnderWay(state);
      if (first) return;
      if (fresh.length > 0) {
        const { toolCallId, toolName } = fresh[0];
        whenAway(waiting(toolName), () => latest?.pendingApprovals?.some((p) => p.toolCallId === toolCallId) === true);
      }
      if (wasUnderWay && !underWay) {
        if (!cancelled && away()) send(ending(state));
        cancelled = false;
      }
    },
    cancelledHere() {
      cancelled = true;
    },
    reset() {
      seen = undefined;
      underWay = false;
      cancelled = false;
      clear();
    },
    close: clear,
  };
}
