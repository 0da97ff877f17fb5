// `harness chat --local`: a chat on the project in the current directory (or --cwd), with no
// server to start first. The chat starts one of its own in this process: on loopback, on a free
// port, behind a token of its own, with the project as every session's workspace and its sessions
// kept under ~/.harness/projects (so `--continue` and `--session` find them again, as they find
// the conversations of `harness -p` in the directory: see local-conversation.ts), and every run
// carrying the run flags it was given (--add-dir, --mcp-config…: see run-flags.ts). The server,
// and with it any run still going, ends with the chat.
import { randomBytes } from "node:crypto";
import { appendFileSync, mkdirSync, renameSync, statSync } from "node:fs";
import { join } from "node:path";
import type { RunnerRunOptions, SessionEndReason } from "@harness/protocol";
import { logWriter } from "@harness/server/log";
import { DEBUG_ENV, debugSetting } from "@harness/runner/debug-setting";
import { chatCommand, defaultUser, type ChatCommand, type ChatIO } from "./chat.ts";
import type { PlanSwitch } from "./modes.ts";
import { missingKeyNote } from "./key-note.ts";
import { localConversation, pickLocal, unknownResume } from "./local-conversation.ts";
import { chatRunOptions } from "./run-flags.ts";
import { projectDataDir, projectPath } from "../project-dir.ts";

/** `io.cwd`: where the command was typed, which the paths of its flags are relative to. */
export async function localChatCommand(command: ChatCommand, io: ChatIO & { cwd: string }): Promise<number> {
  // Checked before anything starts, as harness run checks them, in its words.
  let runOptions: RunnerRunOptions | undefined;
  if (command.runFlags) {
    const checked = await chatRunOptions(command.runFlags, io.cwd, io.env, (message) => io.stderr.write(`harness: ${message}\n`));
    if (!checked.ok) {
      io.stderr.write(`harness: ${checked.message}\n`);
      return 1;
    }
    runOptions = checked.runOptions;
  }
  // Its server honours HARNESS_DEBUG as harness serve does: checked here, to be refused in its words.
  const debug = debugSetting(io.env[DEBUG_ENV]);
  if ("error" in debug) {
    io.stderr.write(`harness: ${debug.error}\n`);
    return 1;
  }
  const project = projectPath(command.cwd ?? ".");
  // Said at a terminal only: a piped chat's first run says it at once anyway.
  if (io.stdin.isTTY) {
    const note = await missingKeyNote(project, io, command.config?.model);
    if (note) io.stderr.write(`harness: ${note}\n`);
  }
  // --resume ID names a conversation of the directory's, a chat's or a run's (harness -p).
  const place = { where: project, env: io.env, userId: command.userId ?? defaultUser(io.env) };
  const unknown = await unknownResume(command, place);
  if (unknown) {
    io.stderr.write(`harness: ${unknown}\n`);
    return 1;
  }
  const dataDir = projectDataDir(project, io.env.HOME || undefined);
  const token = randomBytes(24).toString("hex");
  // The chat's plan mode, which its server reads at each query: the wire's configure has no name for it.
  const plan: PlanSwitch = { on: command.planMode === true };
  // The server's own lines (its URL, runner starts and stops) would break into the conversation:
  // they go to a log beside the sessions, timestamped, without the debug lines (probes and
  // handshakes: the chat's own make many).
  const logFile = join(dataDir, "server.log");
  const log = logWriter({ format: "text", level: "info", timestamps: true }, (line) => {
    try {
      appendFileSync(logFile, `${line}\n`, { mode: 0o600 });
    } catch {
      // A log that cannot be written is no reason to stop the chat.
    }
  });
  const { DataDirTakenError, startServer } = await import("@harness/server");
  let server: Awaited<ReturnType<typeof startServer>>;
  try {
    mkdirSync(dataDir, { recursive: true, mode: 0o700 });
    keepSmall(logFile);
    server = await startServer({ host: "127.0.0.1", port: 0, dataDir, projectDir: project, token, userTokens: new Map(), log, env: io.env, planMode: () => plan.on, userShell: true, ...(runOptions && { runOptions }) });
  } catch (error) {
    io.stderr.write(
      error instanceof DataDirTakenError
        ? `harness: a local chat (or harness serve --project) is already open on ${project} (pid ${error.pid}): use that one, or share the project between several chats with "harness serve --project ${project}" and "harness chat"\n`
        : `harness: cannot start a server for ${project}: ${(error as Error).message}\n`,
    );
    return 1;
  }
  if (debug.filter !== undefined) {
    // Its runners' files are under the chat's data directory, which nothing else shows.
    const dir = join(dataDir, "runners", command.userId ?? defaultUser(io.env));
    io.stderr.write(`harness: ${DEBUG_ENV}=${io.env[DEBUG_ENV]?.trim()}: the runners' debug log is in ${dir}/runner-<n>.debug.log\n`);
  }
  // How the chat was left ends the session's conversation: the server may not have seen it leave yet.
  let left: SessionEndReason | undefined;
  try {
    const own = { plan, ...(runOptions && { run: runOptions }), left: (how: SessionEndReason) => (left = how) };
    // --resume alone: the user picks among the directory's chats and runs, then goes on as with --resume ID.
    let chosen = command;
    if (command.pick) {
      const picked = await pickLocal(place, { url: server.url, token }, io);
      if ("status" in picked) {
        if (picked.message) io.stderr.write(`harness: ${picked.message}\n`);
        return picked.status;
      }
      chosen = { ...command, pick: undefined, sessionId: picked.sessionId, existing: true };
    }
    const going = await localConversation(chosen, place, server.adoptTranscript, io);
    return await chatCommand({ ...going, cwd: project }, { ...io, env: { ...io.env, HARNESS_URL: server.url, HARNESS_TOKEN: token } }, own);
  } finally {
    await server.close(left && { sessionEnd: left });
  }
}

/** The log's last megabyte or so is all anyone reads: a larger one becomes `<file>.1` (replacing
 * the one before). */
function keepSmall(file: string): void {
  try {
    if (statSync(file).size > 1024 * 1024) renameSync(file, `${file}.1`);
  } catch {
    // No log yet.
  }
}
