// Runner processes shared by sessions. A runner process is a host of workspaces (see
// @harness/runner host.ts): the sessions of one group — one user, by default — share processes, up
// to `capacity` sessions each, so that a hundred streaming sessions are a few warm processes rather
// than a hundred cold ones. Sessions of different groups never share a process. A process is
// started when a session of its group needs one and none has room, and stopped when its last
// session has released it.
import { readdirSync } from "node:fs";
import { join } from "node:path";
import { adoptRunner, removeDeadSockets, runnersTmpDir, spawnRunner, sweepLeftoversSoon, type RunnerProcess, type RunnerProcessInfo, type SpawnRunnerOptions } from "./process.ts";
import type { ServerLog } from "../log/writer.ts";

export type RunnerPoolOptions = {
  /** The runners' environment, without credentials (they travel per query). */
  env: Record<string, string | undefined>;
  /** Sessions one process serves at most (1 = a process per session). */
  capacity: number;
  /** Each process's own workspace, under which it also keeps its output: `<dir>/<group>/runner-<n>.log`. */
  dir: string;
  /** A runner that finds itself without a server exits after this long. */
  idleExitMs: number;
  /** The runners' debug filter, when their debug log is on (SpawnRunnerOptions.debug). */
  debug?: string;
  log: ServerLog;
  spawn?: (options: SpawnRunnerOptions) => Promise<RunnerProcess>;
  mainPath?: string;
};

export type RunnerPool = {
  /** A live process of `group` that serves `member` (a session), starting one when none has room.
   * The same member asking again gets the process it already holds, while that one lives. */
  acquire(group: string, member: string): Promise<RunnerProcess>;
  /** Takes over a process an earlier server started (`url`: the process's own base URL). A
   * `retired` one (of another version) is given to no other member, nor to `member` again. */
  adopt(group: string, member: string, info: RunnerProcessInfo, retired?: boolean): RunnerProcess;
  /** `member` no longer uses `proc`; a process no member uses is stopped. */
  release(proc: RunnerProcess, member: string): Promise<void>;
  /** Stops `proc` for all its members (it no longer answers). */
  discard(proc: RunnerProcess): Promise<void>;
  /** Stops every process. */
  close(): Promise<void>;
  /** For metrics: processes alive now, started since the pool was made, and exited while members
   * still used them (not stopped by the pool). */
  counts(): { alive: number; started: number; exitedUnexpectedly: number };
};

type Slot = {
  group: string;
  index: number;
  members: Set<string>;
  ready: Promise<RunnerProcess>;
  /** Serves only the members that adopted it, until they release it. */
  retired?: boolean;
  process?: RunnerProcess;
};

export function createRunnerPool(options: RunnerPoolOptions): RunnerPool {
  if (!Number.isInteger(options.capacity) || options.capacity < 1) throw new Error(`runner capacity must be a positive integer, got ${options.capacity}`);
  const spawnIt = options.spawn ?? spawnRunner;
  const slots: Slot[] = [];
  let started = 0;
  let exitedUnexpectedly = 0;
  const tmp = runnersTmpDir(options.env);
  // Runners that died while no server was there to notice may have left commands running, and
  // their sockets, in every group's directory.
  sweepLeftoversSoon(tmp);
  try {
    for (const group of readdirSync(options.dir)) removeDeadSockets(join(options.dir, group));
  } catch {
    // No runner has run here yet.
  }

  function drop(slot: Slot): void {
    const at = slots.indexOf(slot);
    if (at !== -1) slots.splice(at, 1);
  }

  /** The lowest process number not in use in `group`, so that log files are reused, not piled up. */
  function freeIndex(group: string): number {
    const used = new Set(slots.filter((s) => s.group === group).map((s) => s.index));
    let index = 0;
    while (used.has(index)) index++;
    return index;
  }

  function watch(slot: Slot, proc: RunnerProcess): RunnerProcess {
    slot.process = proc;
    void proc.exited.then(() => {
      // The pool drops a slot before it stops its process: one still held exited by itself.
      if (slots.includes(slot)) exitedUnexpectedly++;
      drop(slot);
    });
    return proc;
  }

  function start(group: string): Slot {
    const index = freeIndex(group);
    const home = join(options.dir, group);
    const spawned = spawnIt({
      workspace: home,
      env: options.env,
      log: options.log,
      mainPath: options.mainPath,
      logFile: join(home, `runner-${index}.log`),
      socketDir: home,
      idleExitMs: options.idleExitMs,
      ...(options.debug !== undefined && { debug: options.debug }),
    });
    const slot: Slot = {
      group,
      index,
      members: new Set(),
      ready: spawned.then(
        (proc) => {
          started++;
          options.log(`runner ${proc.pid} started for ${group} (process ${index})`, { pid: proc.pid, user: group });
          return watch(slot, proc);
        },
        (error: unknown) => {
          drop(slot);
          throw error;
        },
      ),
    };
    slots.push(slot);
    return slot;
  }

  const live = (slot: Slot) => !slot.retired && (slot.process === undefined || slot.process.alive());

  return {
    async acquire(group, member) {
      const slot =
        slots.find((s) => s.group === group && s.members.has(member) && live(s)) ??
        slots.find((s) => s.group === group && s.members.size < options.capacity && live(s)) ??
        start(group);
      slot.members.add(member);
      try {
        return await slot.ready;
      } catch (error) {
        slot.members.delete(member);
        throw error;
      }
    },
    adopt(group, member, info, retired) {
      let slot = slots.find((s) => s.process?.pid === info.pid && s.process.alive());
      if (!slot) {
        const proc = adoptRunner(info, tmp);
        slot = { group, index: freeIndex(group), members: new Set(), ready: Promise.resolve(proc), ...(retired && { retired }) };
        watch(slot, proc);
        slots.push(slot);
      }
      slot.members.add(member);
      return slot.process!;
    },
    async release(proc, member) {
      const slot = slots.find((s) => s.process === proc);
      if (!slot) return;
      slot.members.delete(member);
      if (slot.members.size > 0) return;
      drop(slot);
      options.log(`runner ${proc.pid} serves no session any more; stopping it`, { pid: proc.pid });
      await proc.stop();
    },
    async discard(proc) {
      const slot = slots.find((s) => s.process === proc);
      if (slot) drop(slot);
      await proc.stop();
    },
    counts() {
      const alive = slots.filter((slot) => slot.process?.alive()).length;
      return { alive, started, exitedUnexpectedly };
    },
    async close() {
      const all = slots.splice(0);
      await Promise.all(all.map((s) => s.ready.then((p) => p.stop(), () => {})));
    },
  };
}
