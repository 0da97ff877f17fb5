// Running git on the shadow repository of a workspace's checkpoints. The user's and the system's git
// configuration are left out (no hooks, filters or excludes of theirs), so snapshots and restores
// depend on the workspace alone. git is started from a small helper process (spawn-helper.ts).
import { existsSync } from "node:fs";
import { spawnViaHelper, type SpawnJob } from "./spawn-helper.ts";

/** `stderr` of a command that succeeded holds its warnings. */
export type GitResult = { ok: true; stdout: string; stderr: string } | { ok: false; message: string; code?: number; stdout?: string; stderr?: string };

export type GitRepo = {
  /** The shadow repository (GIT_DIR). */
  gitDir: string;
  /** The workspace (GIT_WORK_TREE). */
  workTree: string;
  /** An index other than the shadow repository's own (GIT_INDEX_FILE). */
  index?: string;
};

function gitEnv(repo: GitRepo | undefined): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {
    LC_ALL: "C",
    GIT_CONFIG_NOSYSTEM: "1",
    GIT_CONFIG_GLOBAL: "/dev/null",
    GIT_TERMINAL_PROMPT: "0",
    GIT_AUTHOR_NAME: "harness",
    GIT_AUTHOR_EMAIL: "harness@localhost",
    GIT_COMMITTER_NAME: "harness",
    GIT_COMMITTER_EMAIL: "harness@localhost",
  };
  if (process.env.PATH !== undefined) env.PATH = process.env.PATH;
  if (process.env.HOME !== undefined) env.HOME = process.env.HOME;
  if (repo) {
    env.GIT_DIR = repo.gitDir;
    env.GIT_WORK_TREE = repo.workTree;
    // The workspace is on this machine's file system: names that only Windows or macOS would take
    // for .git (git~1, .git with trailing dots) are files like any other.
    Object.assign(env, { GIT_CONFIG_COUNT: "2", GIT_CONFIG_KEY_0: "core.protectNTFS", GIT_CONFIG_VALUE_0: "false", GIT_CONFIG_KEY_1: "core.protectHFS", GIT_CONFIG_VALUE_1: "false" });
    if (repo.index !== undefined) env.GIT_INDEX_FILE = repo.index;
  }
  return env;
}

export type Git = {
  /** Runs `git args…`; failures (git missing, a non-zero exit) come back as values. */
  run(args: readonly string[], options?: { repo?: GitRepo; cwd?: string }): Promise<GitResult>;
  /** Whether git can be run at all (checked once per process). */
  available(): Promise<boolean>;
};

/** `command`: the git executable (default "git", looked up on PATH). */
export function createGit(command = "git"): Git {
  const run: Git["run"] = (args, options = {}) => runGit(command, args, options);
  return {
    run,
    available() {
      let known = checked.get(command);
      if (!known) {
        known = run(["--version"], { cwd: "/" }).then((r) => r.ok);
        checked.set(command, known);
      }
      return known;
    },
  };
}

/** Whether each git executable runs, checked once per process (every workspace asks). */
const checked = new Map<string, Promise<boolean>>();

function runGit(command: string, args: readonly string[], options: { repo?: GitRepo; cwd?: string }): Promise<GitResult> {
  return launch(args[0] ?? "", { command, args, cwd: options.cwd ?? options.repo?.workTree, env: gitEnv(options.repo) });
}

async function launch(name: string, job: SpawnJob): Promise<GitResult> {
  let done;
  try {
    done = await spawnViaHelper(job);
  } catch (error) {
    if (job.cwd !== undefined && !existsSync(job.cwd)) return { ok: false, message: `cannot run git in ${job.cwd}: the directory does not exist` };
    return { ok: false, message: `cannot run git: ${(error as Error).message}` };
  }
  if (done.code === 0) return { ok: true, stdout: done.stdout.toString("utf8"), stderr: done.stderr.toString("utf8") };
  const stderr = done.stderr.toString("utf8").trim();
  const message = `git ${name} failed (${done.signal ?? `exit ${done.code}`})${stderr ? `: ${stderr.slice(0, 2000)}` : ""}`;
  return { ok: false, message, ...(done.code !== null && { code: done.code, stdout: done.stdout.toString("utf8"), stderr }) };
}
