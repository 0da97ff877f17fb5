// HARNESS_TOKENS_FILE re-read while the server runs, so that an operator adds or removes a person's
// token without a restart (which would interrupt every run in flight). The file's directory is
// watched, not the file: an editor that writes a new file and renames it over the old one replaces
// the inode a watch of the file would hold. A version that is not good is refused whole, and the
// tokens before it stay in force: never none (everyone locked out), never any (everyone let in).
import { watch, type FSWatcher } from "node:fs";
import { basename, dirname } from "node:path";
import { parseUserTokens, readTokensText, type UserTokens } from "./user-tokens.ts";
import type { ServerLog } from "../log/writer.ts";

/** Changes in the directory that come closer together than this are read as one. */
const SETTLE_MS = 100;

export type TokensReload = {
  /** The tokens in force. */
  current(): UserTokens;
  /** Re-reads the file now (SIGHUP), and says so in the log even when nothing changed. */
  reload(): void;
  stop(): void;
};

export function reloadingTokens(options: {
  file: string;
  /** The tokens read at start. */
  initial: UserTokens;
  minLength: number;
  /** Throws what else makes a version bad (a token that is also the shared one). */
  check(tokens: UserTokens): void;
  /** A good new version is in force (called before the log line). */
  changed(tokens: UserTokens): void;
  log: ServerLog;
}): TokensReload {
  const { file, log } = options;
  let tokens = options.initial;
  // What the last read found (a text, or why none), so that a change that leaves the file as it
  // was (its time touched, the same text saved again) says nothing. None at first: the text read at
  // start may not be the one there now.
  let lastSeen: string | undefined;
  let timer: NodeJS.Timeout | undefined;

  function read(always: boolean): void {
    let text: string;
    let unreadable = false;
    try {
      text = readTokensText(file);
    } catch (error) {
      // Remembered as a text is: a file that stays unreadable is said to be so once.
      text = (error as Error).message;
      unreadable = true;
    }
    if (!always && text === lastSeen) return;
    lastSeen = text;
    if (unreadable) return refuse(text);
    // An empty file is most often one being written (truncated, not yet filled): taking it would
    // close every personal token's connections. Taking every token out is said with a comment.
    if (text.trim() === "") return refuse(`HARNESS_TOKENS_FILE ${file} is empty (a save still under way?): to take every token out, leave a comment line in it`);
    let next: UserTokens;
    try {
      next = parseUserTokens(text, file, options.minLength);
      options.check(next);
    } catch (error) {
      return refuse((error as Error).message);
    }
    tokens = next;
    options.changed(next);
    log(`HARNESS_TOKENS_FILE ${file} re-read: ${plural(next.size)} in force now`);
  }

  function refuse(why: string): void {
    log(`${why}; the file is not taken: the ${plural(tokens.size)} before it ${tokens.size === 1 ? "stays" : "stay"} in force`, { level: "error" });
  }

  let watcher: FSWatcher | undefined;
  try {
    watcher = watch(dirname(file), { persistent: false }, (_event, name) => {
      // Some platforms name no file; any change may then be this one. A Kubernetes volume swaps
      // its "..data" link instead. Other files are let be: their changes would put off the read.
      if (name !== null && name !== basename(file) && !name.startsWith("..")) return;
      clearTimeout(timer);
      timer = setTimeout(() => read(false), SETTLE_MS);
    });
    watcher.on("error", (error) => log(`HARNESS_TOKENS_FILE ${file}: no longer watched (${error.message}): send the server SIGHUP to re-read it`, { level: "warn" }));
  } catch (error) {
    log(`HARNESS_TOKENS_FILE ${file}: cannot watch its directory (${(error as Error).message}): send the server SIGHUP to re-read it`, { level: "warn" });
  }

  return {
    current: () => tokens,
    reload: () => read(true),
    stop() {
      clearTimeout(timer);
      watcher?.close();
    },
  };
}

function plural(n: number): string {
  return `${n} token${n === 1 ? "" : "s"}`;
}
