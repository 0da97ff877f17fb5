// File checkpoints of a workspace, whatever changed the files (an edit tool, a shell command, the
// user): before a run changes anything (or before the run, for a backend that cannot say when it
// will), the whole workspace is snapshotted into a shadow git repository kept in the state
// directory (its own index makes repeated snapshots cost only what changed). A rewind puts
// every file back byte for byte and removes the files created since. The workspace's .gitignore is
// honoured; .git and node_modules are never included. The files of repositories nested in the
// workspace are snapshotted like any others (their own .git is left alone).
import { closeSync, existsSync, fstatSync, openSync, readSync } from "node:fs";
import { mkdir, readdir, rename, rm, stat, writeFile } from "node:fs/promises";
import { isAbsolute, join, relative } from "node:path";
import type { FileChange } from "@harness/protocol";
import { changedBetween, type ChangedPaths } from "./changed-files.ts";
import { createGit, type Git, type GitRepo, type GitResult } from "./git.ts";
import { gitlinksTo, parseChanges, unstorablePaths } from "./git-output.ts";
import { ignoredInTree } from "./ignored-then.ts";
import { untrackedInTheWay } from "./in-the-way.ts";
import { keepModes, modesOf } from "./modes.ts";
import { addedGitlink, gitlinks, refusedRepositories, unfoldArgs } from "./nested.ts";
import { appendLine, applyLine, messageMap, readIndex, rewriteJournal, type CheckpointEntry, type CheckpointIndex, type JournalLine } from "./index-file.ts";

/** `blocked`: the workspace holds what the restore would lose (the message says what), not a failure of git. */
export type Result<T> = { ok: true; value: T } | { ok: false; message: string; blocked?: true };

export const GIT_NEEDED_MESSAGE = "file checkpoints need git, which is not installed on the runner's machine";

export type Checkpoints = {
  /** False when git is missing: no snapshot is taken, and only a backend's own rewind works. */
  available(): Promise<boolean>;
  /** Records the state of the workspace before the run that answers `userMessageId` (the first run
   * for an id wins: a rewind goes back to before the message was ever answered). The snapshot is
   * also that of every message still pending (see reserve). `leftOut`: files whose names git
   * refuses to store (.GIT/…), which the snapshot does not hold and a rewind leaves as they are. */
  beforeRun(userMessageId: string, backend: string): Promise<Result<{ tree?: string; ms: number; leftOut?: string[] }>>;
  /** Records that a run answering `userMessageId` has begun and changed nothing yet: its entry is
   * pending until the next snapshot, whichever run takes it, which is then its own. A rewind to a
   * message still pending has nothing to restore. Nothing happens for a message already known. */
  reserve(userMessageId: string, backend: string): Promise<void>;
  entry(userMessageId: string): Promise<CheckpointEntry | undefined>;
  /** What restoring `tree` would change, from the workspace as it is now. Touches no file. */
  plan(tree: string): Promise<Result<FileChange[]>>;
  /** Restores `tree`: returns what it changed. */
  restore(tree: string): Promise<Result<FileChange[]>>;
  /** Snapshots the workspace as it is now (keeping no checkpoint of it) and lists the files created
   * or changed since `tree`, a snapshot's, at most `max`; `tree` comes back as the snapshot's, to
   * compare the next one with. Touches no file of the workspace. */
  changedSince(tree: string, max: number): Promise<Result<ChangedPaths & { tree: string }>>;
};

// Every snapshot's tree is kept reachable by a ref of its own, refs/harness/trees/<tree>, written as
// a loose ref file: a commit per snapshot (and the processes to make it) would keep them no better.
// Repositories from earlier versions also have refs/harness/checkpoints, a chain of commits.
const TREE_REFS = join("refs", "harness", "trees");
// Highest precedence of all attribute files: store and restore bytes as they are, whatever the
// workspace's .gitattributes say (no end-of-line conversion, no filters).
const ATTRIBUTES = "* -text -filter -ident -working-tree-encoding\n";

/** What restoring a checkpoint changes; `target`, the tree to restore; `keep`, the files in the
 * workspace that the restore must leave although `target` lacks them; `now`, the workspace's tree. */
type Plan = { changes: FileChange[]; target: string; keep: string[]; now: string };

/** How many messages keep their checkpoint: past `entries + slack`, the oldest are dropped (down to
 * `entries`), with their snapshots' objects, and the shadow repository is packed. */
export type CheckpointRetention = { entries: number; slack: number };
export const DEFAULT_CHECKPOINT_RETENTION: CheckpointRetention = { entries: 100, slack: 20 };

export function createCheckpoints(options: { workspace: string; stateDir: string; git?: Git; retention?: CheckpointRetention }): Checkpoints {
  const git = options.git ?? createGit();
  const retention = options.retention ?? DEFAULT_CHECKPOINT_RETENTION;
  const repo: GitRepo = { gitDir: join(options.stateDir, "checkpoints.git"), workTree: options.workspace };
  let index: CheckpointIndex | undefined;
  const excludes = new Set(["/.git", ".git", "node_modules/"]);
  const writeExcludes = () => writeFile(join(repo.gitDir, "info", "exclude"), `${[...excludes].join("\n")}\n`);
  let prepared: Promise<Result<void>> | undefined;
  // The tree of the shadow index as it last stood, and the marks (indexMark) of the index files it
  // was the tree of: an index that `git add` left byte for byte as it was has that tree, and no
  // write-tree (a process) is needed to know it. Most runs change nothing between two snapshots.
  let lastTree: { tree: string; marks: string[] } | undefined;
  // The files the last snapshot left out: their names are ones git refuses to store (.GIT/…).
  let unstorable: string[] = [];
  // Whether the shadow index was searched for gitlinks since this process began.
  let gitlinksSought = false;
  // One git operation at a time: they share the shadow index.
  let queue: Promise<unknown> = Promise.resolve();
  const serial = <T>(work: () => Promise<T>): Promise<T> => {
    const next = queue.then(work, work);
    queue = next.catch(() => {});
    return next;
  };

  /** Stores a change, then makes it in memory (a change that could not be stored is not made). */
  function record(idx: CheckpointIndex, line: JournalLine): void {
    appendLine(options.stateDir, line);
    applyLine(idx, line);
  }

  async function loadIndex(): Promise<CheckpointIndex> {
    index ??= (await readIndex(options.stateDir)).index;
    return index;
  }

  function prepare(): Promise<Result<void>> {
    prepared ??= (async (): Promise<Result<void>> => {
      try {
        return await createRepo();
      } catch (error) {
        return { ok: false, message: `cannot set up the checkpoint repository in ${options.stateDir}: ${(error as Error).message}` };
      }
    })();
    return prepared;
  }

  async function createRepo(): Promise<Result<void>> {
    if (!existsSync(join(repo.gitDir, "HEAD"))) {
      await mkdir(options.stateDir, { recursive: true });
      const init = await git.run(["init", "--quiet", "--bare", repo.gitDir], { cwd: options.stateDir });
      if (!init.ok) return init;
    }
    await removeStaleLocks(repo.gitDir);
    for (const [key, value] of [["gc.auto", "0"], ["core.autocrlf", "false"], ["core.bare", "false"]]) {
      const set = await git.run(["config", key, value], { repo });
      if (!set.ok) return set;
    }
    const state = relative(options.workspace, options.stateDir);
    if (state && !state.startsWith("..") && !isAbsolute(state)) excludes.add(`/${state.split("\\").join("/")}/`);
    await mkdir(join(repo.gitDir, "info"), { recursive: true });
    await writeExcludes();
    await writeFile(join(repo.gitDir, "info", "attributes"), ATTRIBUTES);
    return { ok: true, value: undefined };
  }

  /** Brings the shadow index up to date with the workspace and returns its tree. */
  async function snapshotTree(): Promise<Result<string>> {
    const ready = await prepare();
    if (!ready.ok) {
      prepared = undefined;
      return ready;
    }
    const added = await addAll();
    if (!added.ok) return added;
    const afterAdd = indexMark(join(repo.gitDir, "index"));
    if (afterAdd !== undefined && lastTree?.marks.includes(afterAdd)) return { ok: true, value: lastTree.tree };
    const tree = await git.run(["write-tree"], { repo });
    if (!tree.ok) return tree;
    const value = tree.stdout.trim();
    // write-tree stores the tree in the index too, which rewrites it.
    const afterWrite = indexMark(join(repo.gitDir, "index"));
    lastTree = { tree: value, marks: [afterAdd, afterWrite].filter((mark) => mark !== undefined) };
    return { ok: true, value };
  }

  /** Snapshots the workspace and keeps the snapshot's tree reachable; returns the tree. */
  async function snapshotAndKeep(): Promise<Result<string>> {
    const tree = await snapshotTree();
    if (!tree.ok) return tree;
    const ref = join(repo.gitDir, TREE_REFS, tree.value);
    if (!existsSync(ref)) {
      await mkdir(join(repo.gitDir, TREE_REFS), { recursive: true });
      // Whole or not at all: a ref cut short by a crash would be taken as written next time. The
      // temporary file lies outside refs/, where git would read a leftover one as a ref.
      const temp = join(repo.gitDir, `tree-ref.${process.pid}.tmp`);
      await writeFile(temp, `${tree.value}\n`);
      await rename(temp, ref);
    }
    return tree;
  }

  /** `git add --all`, nested repositories' files included (see nested.ts). */
  async function addAll(): Promise<GitResult> {
    for (let tries = 0; ; tries++) {
      let added = await git.run(["add", "--all", "--ignore-errors", "--", "."], { repo });
      unstorable = added.ok ? [] : unstorablePaths(added.stderr ?? "");
      // The rest of the workspace was added (--ignore-errors): the snapshot leaves those out.
      if (!added.ok && unstorable.length > 0) added = { ok: true, stdout: "", stderr: added.stderr ?? "" };
      let nested: string[] = [];
      if (!added.ok) nested = refusedRepositories(added.message);
      else if (addedGitlink(added.stderr) || !gitlinksSought) {
        // Which paths it added as gitlinks (the warning's text is not meant to be parsed), and,
        // once per process, those that earlier versions left in the index.
        const stage = await git.run(["ls-files", "--stage", "-z"], { repo });
        if (!stage.ok) return stage;
        gitlinksSought = true;
        nested = gitlinks(stage.stdout);
      }
      if (nested.length === 0 || tries === 10) return added;
      const unfolded = await git.run(unfoldArgs(nested), { repo });
      if (!unfolded.ok) return unfolded;
    }
  }

  /** Drops the oldest checkpoints past the retention, their tree refs and the objects only they
   * held. A failure leaves things as they were, to be tried after a later run. */
  async function prune(idx: CheckpointIndex): Promise<void> {
    const settled = Object.entries(idx.messages).filter(([, entry]) => !entry.pending);
    if (settled.length <= retention.entries + retention.slack) return;
    settled.sort(([, a], [, b]) => (a.createdAt < b.createdAt ? -1 : a.createdAt > b.createdAt ? 1 : 0));
    const dropped = new Set(settled.slice(0, settled.length - retention.entries).map(([id]) => id));
    // The journal is rewritten without them first: a rewrite that fails changes nothing.
    const messages = messageMap(Object.entries(idx.messages).filter(([id]) => !dropped.has(id)));
    rewriteJournal(options.stateDir, { ...idx, messages });
    idx.messages = messages;
    const kept = new Set(Object.values(messages).map((entry) => entry.tree));
    const refs = join(repo.gitDir, TREE_REFS);
    for (const tree of await readdir(refs).catch(() => [])) if (!kept.has(tree)) await rm(join(refs, tree), { force: true });
    // Packs what is left (every snapshot leaves loose objects) and deletes what nothing refers to.
    // The refs stay loose files, as this function finds them.
    await git.run(["-c", "gc.packRefs=false", "gc", "--quiet", "--prune=now"], { repo });
  }

  /** What restoring `tree` changes, and the tree to restore: `tree` itself, but for the nested
   * repositories that a snapshot of an earlier version holds as gitlinks, whose files are left as
   * they are now (that snapshot has none of them; restoring it would delete them all). */
  async function diff(tree: string): Promise<Result<Plan>> {
    // A run may have removed the workspace itself: it is then empty, and a restore fills it again.
    await mkdir(options.workspace, { recursive: true });
    const now = await snapshotTree();
    if (!now.ok) return now;
    let target = tree;
    for (let pass = 0; ; pass++) {
      if (now.value === target) return { ok: true, value: { changes: [], target, keep: [], now: now.value } };
      const base = ["diff-tree", "-r", "--no-renames", "--no-ext-diff", "-z"];
      const [raw, numstat] = await Promise.all([
        git.run([...base, "--raw", now.value, target], { repo }),
        git.run([...base, "--numstat", now.value, target], { repo }),
      ]);
      if (!raw.ok) return raw;
      if (!numstat.ok) return numstat;
      const links = pass === 0 ? gitlinksTo(raw.stdout) : [];
      if (links.length === 0) return keepIgnored({ changes: parseChanges(raw.stdout, numstat.stdout), target, keep: [], now: now.value });
      const grafted = await graft(target, now.value, links);
      if (!grafted.ok) return grafted;
      target = grafted.value;
    }
  }

  /** diff(tree), refused when the restore would remove files that checkpoints leave alone. */
  async function planRestore(tree: string): Promise<Result<Plan>> {
    const planned = await diff(tree);
    if (!planned.ok) return planned;
    const inTheWay = await untrackedInTheWay(options.workspace, planned.value.changes);
    if (inTheWay.length === 0) return planned;
    const named = `${inTheWay.slice(0, 10).join(", ")}${inTheWay.length > 10 ? `, and ${inTheWay.length - 10} more` : ""}`;
    return { ok: false, blocked: true, message: `files that checkpoints leave alone (ignored ones) stand where the checkpoint restores others, and would be lost: ${named}; move them away and rewind again` };
  }

  /** Leaves out of `changes` the removal of files that `target`'s .gitignore files ignore (see
   * ignored-then.ts). Only a change to a .gitignore file can make such a file part of the snapshots. */
  async function keepIgnored(plan: Plan): Promise<Result<Plan>> {
    const { changes, target } = plan;
    const rulesChanged = changes.some((change) => change.path === ".gitignore" || change.path.endsWith("/.gitignore"));
    const removed = rulesChanged ? changes.filter((change) => change.action === "delete").map((change) => change.path) : [];
    const ignored = await ignoredInTree(git, repo, target, removed);
    if (!ignored.ok) return ignored;
    const keep = removed.filter((path) => ignored.value.has(path));
    return { ok: true, value: { ...plan, changes: keep.length > 0 ? changes.filter((change) => !ignored.value.has(change.path)) : changes, keep } };
  }

  /** `tree` with the content of `paths` taken from `from` (each a tree there, or nothing). */
  async function graft(tree: string, from: string, paths: string[]): Promise<Result<string>> {
    const scratch: GitRepo = { ...repo, index: join(repo.gitDir, "graft-index") };
    try {
      const steps = [["read-tree", tree], ["update-index", "--force-remove", "--", ...paths]];
      const listed = await git.run(["ls-tree", "-z", from, "--", ...paths], { repo });
      if (!listed.ok) return listed;
      for (const record of listed.stdout.split("\0")) {
        const [info, path] = record.split("\t");
        if (info?.split(" ")[1] === "tree") steps.push(["read-tree", `--prefix=${path}/`, `${from}:${path}`]);
      }
      for (const step of steps) {
        const done = await git.run(step, { repo: scratch });
        if (!done.ok) return done;
      }
      const written = await git.run(["write-tree"], { repo: scratch });
      return written.ok ? { ok: true, value: written.stdout.trim() } : written;
    } finally {
      await rm(scratch.index!, { force: true });
    }
  }

  return {
    available: () => git.available(),
    beforeRun(userMessageId, backend) {
      return serial(async () => {
        const started = performance.now();
        const idx = await loadIndex();
        const known = idx.messages[userMessageId];
        if (known && !known.pending) return { ok: true, value: { tree: known.tree, ms: 0 } };
        let tree: string | undefined;
        let failure: string | undefined;
        if (await git.available()) {
          const snapshot = await snapshotAndKeep();
          if (snapshot.ok) tree = snapshot.value;
          else failure = snapshot.message;
        }
        record(idx, { id: userMessageId, entry: { ...(tree && { tree }), backend: known?.backend ?? backend, createdAt: known?.createdAt ?? new Date().toISOString() } });
        // Nothing was changed since the pending messages' runs began (a change would have taken a
        // snapshot first): the workspace before them is this one. Without a snapshot, they have none.
        if (Object.values(idx.messages).some((entry) => entry.pending)) record(idx, { fill: tree ?? null });
        // After this run's snapshot is kept, and before the next one: never while git adds objects.
        if (tree) void serial(() => prune(idx).catch(() => undefined));
        if (failure !== undefined) return { ok: false, message: failure };
        return { ok: true, value: { ...(tree && { tree }), ms: performance.now() - started, ...(tree && unstorable.length > 0 && { leftOut: unstorable }) } };
      });
    },
    reserve(userMessageId, backend) {
      return serial(async () => {
        const idx = await loadIndex();
        if (idx.messages[userMessageId]) return;
        record(idx, { id: userMessageId, entry: { pending: true, backend, createdAt: new Date().toISOString() } });
      });
    },
    async entry(userMessageId) {
      return serial(async () => (await loadIndex()).messages[userMessageId]);
    },
    plan(tree) {
      return serial(async () => {
        const planned = await planRestore(tree);
        return planned.ok ? { ok: true, value: planned.value.changes } : planned;
      });
    },
    restore(tree) {
      return serial(async () => {
        const planned = await planRestore(tree);
        if (!planned.ok) return planned;
        const { changes, target, keep, now } = planned.value;
        if (changes.length === 0) return { ok: true, value: changes };
        // Out of the index, the files to keep are unknown to the reset, which leaves them.
        for (let i = 0; i < keep.length; i += 500) {
          const dropped = await git.run(["update-index", "--force-remove", "--", ...keep.slice(i, i + 500)], { repo });
          if (!dropped.ok) return dropped;
        }
        // The index now matches the workspace, so a two-way reset writes exactly the files that
        // differ and removes the ones the tree does not have (and directories left empty).
        const modes = await modesOf(options.workspace, changes.filter((change) => change.action === "restore").map((change) => change.path));
        lastTree = undefined;
        const reset = await git.run(["read-tree", "--reset", "-u", target], { repo });
        await keepModes(options.workspace, modes);
        // git only warns of a file it could not remove: the workspace is compared with the tree.
        const after = await snapshotTree();
        if (after.ok ? after.value === target : reset.ok) return { ok: true, value: changes };
        const problem = reset.ok ? reset.stderr.trim() || "the workspace differs from the checkpoint" : reset.message;
        const failure = await putBack(now, { target, after: after.ok ? after.value : undefined, problem });
        await keepModes(options.workspace, modes);
        return failure;
      });
    },
    changedSince(tree, max) {
      return serial(async () => {
        const now = await snapshotTree();
        if (!now.ok) return now;
        const changed = await changedBetween(git, repo, tree, now.value, max);
        return changed.ok ? { ok: true, value: { ...changed.value, tree: now.value } } : changed;
      });
    },
  };

  /** After a restore that did not complete, puts the workspace back as it was before (`now`): what
   * the restore removed or overwrote is not lost. The message names the files it could not restore. */
  async function putBack(now: string, failed: { target: string; after?: string; problem: string }): Promise<Result<never>> {
    let unrestored = "";
    if (failed.after) {
      const names = await git.run(["diff-tree", "-r", "--no-renames", "--name-only", "-z", failed.after, failed.target], { repo });
      const paths = names.ok ? names.stdout.split("\0").filter(Boolean) : [];
      if (paths.length > 0) unrestored = ` (not restored: ${paths.slice(0, 10).join(", ")}${paths.length > 10 ? `, and ${paths.length - 10} more` : ""})`;
    }
    const failure = `the restore did not complete${unrestored}: ${failed.problem}`;
    lastTree = undefined;
    const back = await git.run(["read-tree", "--reset", "-u", now], { repo });
    const check = back.ok ? await snapshotTree() : back;
    if (check.ok && check.value === now) return { ok: false, message: `${failure}; every file was put back as it was before the rewind` };
    return { ok: false, message: `${failure}; putting the files back as they were did not complete either: ${check.ok ? back.ok && back.stderr.trim() : check.message}` };
  }
}

/** When this process began: a lock file older than that is left by a git that was killed (with an
 * earlier runner), since this process runs one git operation at a time on its shadow repositories. */
const processStart = Date.now() - process.uptime() * 1000;

/** Removes the locks a killed git left in `gitDir`, which would fail every later snapshot. */
async function removeStaleLocks(gitDir: string): Promise<void> {
  for (const name of ["index.lock", "config.lock"]) {
    const lock = join(gitDir, name);
    const since = await stat(lock).then((s) => s.mtimeMs, () => undefined);
    if (since !== undefined && since < processStart) await rm(lock, { force: true });
  }
}

/** The size and last 32 bytes of a git index file, which ends with a hash of all that precedes it:
 * two equal marks are the same index, learnt without reading it. Undefined when the file cannot be
 * read or carries no hash (index.skipHash). */
export function indexMark(path: string): string | undefined {
  let fd: number | undefined;
  try {
    fd = openSync(path, "r");
    const { size } = fstatSync(fd);
    if (size < 64) return undefined;
    const tail = Buffer.alloc(32);
    if (readSync(fd, tail, 0, 32, size - 32) !== 32) return undefined;
    if (tail.subarray(12).every((byte) => byte === 0)) return undefined;
    return `${size}:${tail.toString("hex")}`;
  } catch {
    return undefined;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}
