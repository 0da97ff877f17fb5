// Runs Bash commands inside the OS sandbox, through @anthropic-ai/sandbox-runtime: bubblewrap on
// Linux, with the network reachable only through the library's filtering proxies (bridged into the
// sandbox by socat). The library keeps one configuration per process, so each command brings its
// own policy (its writable directories, its allowed domains) with it; the process-wide one allows
// nothing.
import { accessSync, constants, lstatSync, mkdirSync, readFileSync, rmdirSync, rmSync, writeFileSync, type Stats } from "node:fs";
import { randomUUID } from "node:crypto";
import path from "node:path";
import { findRipgrep } from "../tools/grep/grep.ts";
import { gitConfigPaths } from "./git-config-paths.ts";
import { protectedPaths, type SandboxPolicy } from "./policy.ts";
import { entryPath, named } from "./sandbox-paths.ts";

type Library = typeof import("@anthropic-ai/sandbox-runtime");
type Manager = Library["SandboxManager"];

/** The programs the sandbox needs besides ripgrep (which comes with this package). */
const PROGRAMS = ["bwrap", "socat"] as const;
const INSTALL_HINT = "install bubblewrap and socat (Debian and Ubuntu: apt-get install bubblewrap socat)";

let ready: Promise<Manager> | undefined;
let checked: Promise<string | undefined> | undefined;

/** Why the sandbox cannot run here (a missing program, an unsupported system), or undefined when
 * it can. Found once per process. */
export function sandboxUnavailable(env: Readonly<Record<string, string | undefined>> = process.env): Promise<string | undefined> {
  checked ??= findProblem(env);
  return checked;
}

async function findProblem(env: Readonly<Record<string, string | undefined>>): Promise<string | undefined> {
  if (process.platform !== "linux") return `the sandbox runs on Linux only, and this is ${process.platform}`;
  const missing = PROGRAMS.filter((program) => !onPath(program, env.PATH ?? ""));
  if (missing.length > 0) return `${missing.join(" and ")} ${missing.length > 1 ? "are" : "is"} not installed: ${INSTALL_HINT}`;
  if (!(await findRipgrep())) return "ripgrep is missing: reinstall the project's dependencies (npm install)";
  try {
    await manager();
  } catch (error) {
    return `the sandbox failed to start: ${error instanceof Error ? error.message : String(error)}`;
  }
  return undefined;
}

function onPath(program: string, searchPath: string): boolean {
  return searchPath
    .split(path.delimiter)
    .filter(Boolean)
    .some((dir) => {
      try {
        accessSync(path.join(dir, program), constants.X_OK);
        return true;
      } catch {
        return false;
      }
    });
}

/** The library, initialised once per process with a configuration that allows nothing: writes
 * nowhere, no domain, and a request to a domain no command allows is refused, not asked about. */
function manager(): Promise<Manager> {
  ready ??= (async () => {
    const [{ SandboxManager }, rg] = await Promise.all([import("@anthropic-ai/sandbox-runtime"), findRipgrep()]);
    await SandboxManager.initialize(
      {
        network: { allowedDomains: [], deniedDomains: [] },
        filesystem: { denyRead: [], allowWrite: [], denyWrite: [] },
        ...(rg && { ripgrep: { command: rg } }),
      },
      // The reason is what a refused connection is reported with (SandboxedCommand.blocked).
      async () => ({ allow: false, reason: "not an allowed domain" }),
    );
    return SandboxManager;
  })();
  ready.catch(() => {
    ready = undefined;
  });
  return ready;
}

/** Stops the sandbox's proxies, which otherwise keep this process's event loop alive (a host that
 * ends with process.exit need not call it). The next sandboxed command starts them again. */
export async function stopSandbox(): Promise<void> {
  const current = ready;
  ready = undefined;
  if (current) await (await current.catch(() => undefined))?.reset();
}

export type SandboxedCommand = {
  /** The command line to run with `bash -c` in place of the original. */
  command: string;
  /** What the sandbox refused the command so far that the command's own messages may not name as
   * the sandbox's doing (connections its proxies refused), one line each. */
  blocked(): string[];
  /** Call once the command has ended (or will not run): forgets its network allowances, and once
   * no sandboxed command is left running, removes the empty files and directories bubblewrap
   * made on the host to mount over protected paths that did not exist. */
  release(): void;
};

/** `command` wrapped to run in the sandbox under `policy` (from the directory the wrapped command
 * is started in). Rejects when the sandbox cannot start, or a protected path is a symbolic link. */
export async function wrapInSandbox(command: string, policy: SandboxPolicy, signal: AbortSignal): Promise<SandboxedCommand> {
  const sandbox = await manager();
  if (running === 0) clearStalePlaceholders(policy.protectedRoots);
  // Counted from here: what is made for this command stays until it is released.
  running++;
  const done = () => {
    running--;
    if (running === 0) removeStandIns();
  };
  // The id is what the proxies know the command's allowances by: it must not be guessable by
  // another sandboxed command.
  const id = randomUUID();
  const { network, filesystem } = policy;
  let wrapped: string;
  try {
    standInForCommonDir(policy.protectedRoots);
    const configured = gitConfigPaths(policy.protectedRoots, filesystem.allowWrite.map(entryPath));
    // What stands in for a missing path is still missing, for what is protected (a `.claude` made
    // so is kept whole, as the next command would have found it).
    const standingIn = (file: string) => (directoryStandIns.includes(file) ? undefined : lstatOrNothing(file));
    const kept = [...protectedPaths(policy.protectedRoots, standingIn), ...configured.hooks];
    standInForMissing(kept);
    // A missing include keeps the sandbox's own placeholder: git reads an empty file as no config,
    // but refuses a directory.
    kept.push(...configured.includes);
    mkdirSync(policy.tmpDir, { recursive: true, mode: 0o700 });
    sandbox.registerCommandNetworkLists(id, { allowedDomains: network.allowedDomains });
    wrapped = await sandbox.wrapWithSandbox(
      // On the command's own line, so that bash's line numbers in messages stay right.
      `export TMPDIR=${shellQuote(policy.tmpDir)}; ${command}`,
      "bash",
      {
        filesystem: { allowWrite: filesystem.allowWrite, denyWrite: [...kept.map(named), ...filesystem.denyWrite], denyRead: filesystem.denyRead, allowRead: filesystem.allowRead },
        network: {
          allowedDomains: network.allowedDomains,
          deniedDomains: [],
          ...(network.allowUnixSockets && { allowUnixSockets: network.allowUnixSockets }),
          ...(network.allowAllUnixSockets !== undefined && { allowAllUnixSockets: network.allowAllUnixSockets }),
          ...(network.allowLocalBinding !== undefined && { allowLocalBinding: network.allowLocalBinding }),
        },
      },
      signal,
      { commandId: id, commandText: command },
    );
  } catch (error) {
    // A wrap that failed opened nothing to clean up after.
    sandbox.unregisterCommandNetworkLists(id);
    done();
    throw error;
  }
  let released = false;
  return {
    command: wrapped,
    blocked: () => sandbox.getSandboxViolationStore().getViolationsForCommand(id).map((violation) => violation.line),
    release() {
      if (released) return;
      released = true;
      sandbox.unregisterCommandNetworkLists(id);
      sandbox.cleanupAfterCommand();
      done();
    },
  };
}

/** The protected paths that are files (outside `.git`). */
const PROTECTED_FILES = [".mcp.json", ".gitmodules", path.join(".claude", "settings.json"), path.join(".claude", "settings.local.json")];

/** Sandboxed commands of this process not yet released. */
let running = 0;

/** lstat, with no answer for a path that is not there, whether its last part is missing or a part
 * before it is a file (ENOTDIR). */
function lstatOrNothing(file: string): Stats | undefined {
  try {
    return lstatSync(file, { throwIfNoEntry: false });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOTDIR") return undefined;
    throw error;
  }
}

/** The empty files bubblewrap mounts over a missing `.git` or `.claude` are removed after each
 * command (SandboxedCommand.release), but not when the process was killed first (SIGKILL, the
 * out-of-memory killer): left there, they would stand where the project's directories belong. An
 * empty regular file by those names is nothing else (git refuses an empty .git file), so while no
 * sandboxed command of this process runs, one is removed; so are a `.git/commondir` stand-in (git
 * writes none that names `.git` itself) and an empty directory where a protected file belongs. */
function clearStalePlaceholders(roots: readonly string[]): void {
  for (const root of roots) {
    for (const top of [".git", ".claude"]) {
      const file = path.join(root, top);
      const stats = lstatOrNothing(file);
      if (stats?.isFile() && stats.size === 0) rmSync(file, { force: true });
    }
    const commonDir = path.join(root, ".git", "commondir");
    if (isCommonDirStandIn(commonDir)) rmSync(commonDir, { force: true });
    // An empty directory where a file belongs stood in for a missing one (standInForMissing).
    for (const file of PROTECTED_FILES) {
      const stale = path.join(root, file);
      if (lstatOrNothing(stale)?.isDirectory()) removeIfEmpty(stale);
    }
  }
}

/** Where a protected path is missing, the sandbox would mount /dev/null over it to keep it from
 * being made, which commands see as a device file: `git add -A`, refusing to add one, fails. An
 * empty directory keeps it from being made as well (mounted read-only, being there), and git and
 * other tools listing the workspace pass over it; so one is made, but for `.git` and what lies in
 * it (git takes an empty `.git` for no repository and looks in the directories above, and reads
 * `.git/config` as a file). Made before the sandbox looks and kept while any sandboxed command of
 * this process runs, it is there for every command that starts meanwhile. */
function standInForMissing(kept: readonly string[]): void {
  for (const file of kept) {
    if (file.split(path.sep).includes(".git") || lstatOrNothing(file)) continue;
    try {
      mkdirSync(file);
    } catch {
      // The sandbox mounts its own placeholder.
      continue;
    }
    directoryStandIns.push(file);
  }
}

/** The directories standInForMissing made, in the order it made them. */
const directoryStandIns: string[] = [];

/** What `.git/commondir` holds while a sandboxed command runs where the repository has none: git
 * finds its common directory where it already was, the `.git` directory itself. */
const COMMON_DIR_STAND_IN = ".\n";

/** The `.git/commondir` files this process made (standInForCommonDir), removed once no sandboxed
 * command of it runs. */
const commonDirStandIns = new Set<string>();

/** A `.git/commondir` names the directory git takes the repository's config and hooks from: one a
 * command wrote, naming a directory of its own, would hand git run outside the sandbox (the user's,
 * the harness's) a config of the command's choosing. Mounted over while missing, it would be an
 * empty file, which git refuses to read, so where a `.git` directory has none, one naming `.git`
 * itself stands in (and is protected, being there) while sandboxed commands run. */
function standInForCommonDir(roots: readonly string[]): void {
  for (const root of roots) {
    const dotGit = path.join(root, ".git");
    const file = path.join(dotGit, "commondir");
    if (!lstatOrNothing(dotGit)?.isDirectory() || lstatOrNothing(file)) continue;
    try {
      writeFileSync(file, COMMON_DIR_STAND_IN, { flag: "wx" });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "EEXIST") continue;
      throw new Error(`cannot protect ${file} (${(error as Error).message})`, { cause: error });
    }
    commonDirStandIns.add(file);
  }
}

/** Removes what this process made to stand in for missing protected paths; a directory only while
 * it is empty. */
function removeStandIns(): void {
  for (const file of commonDirStandIns) {
    if (isCommonDirStandIn(file)) rmSync(file, { force: true });
  }
  commonDirStandIns.clear();
  for (const dir of directoryStandIns.splice(0).reverse()) removeIfEmpty(dir);
}

function removeIfEmpty(dir: string): void {
  try {
    rmdirSync(dir);
  } catch {
    // Not empty (or gone): not a stand-in now, and left alone.
  }
}

function isCommonDirStandIn(file: string): boolean {
  try {
    return lstatSync(file).isFile() && readFileSync(file, "utf8") === COMMON_DIR_STAND_IN;
  } catch {
    return false;
  }
}

function shellQuote(text: string): string {
  return `'${text.replaceAll("'", "'\\''")}'`;
}
