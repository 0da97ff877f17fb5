// Runs short-lived commands (git, for checkpoints) from a small helper process. Starting a process
// from a big one is costly: fork copies the parent's page tables (a runner serving dozens of
// sessions holds hundreds of megabytes: 3–4 ms of CPU per start, against about 1 ms from a small
// process), and meanwhile the parent's other threads stall on memory they touch, which would stall
// every stream the runner carries. The helper is a bare Node process, started on first use, that
// exits with the runner (when its IPC channel closes). Its commands are housekeeping: they run at a
// lower CPU priority than the runner (niceness 10, inherited by each command), a few at a time (as
// many as there are cores), so that a burst of checkpoints does not take the CPU from streaming runs.
import { spawn, type ChildProcess } from "node:child_process";

export type Finished = { code: number | null; signal: string | null; stdout: Buffer; stderr: Buffer };
export type SpawnJob = { command: string; args: readonly string[]; cwd?: string; env: Record<string, string | undefined> };

/** How much lower than the runner's the helper's (and its commands') CPU priority is. */
const NICENESS = 10;

type Reply = { id: number; error?: string; code?: number | null; signal?: string | null; stdout?: Uint8Array; stderr?: Uint8Array };

// CommonJS, run by the helper: one job per message, answered once.
const HELPER_SOURCE = `
const { spawn } = require("node:child_process");
const os = require("node:os");
try {
  os.setPriority(Math.min(19, os.getPriority() + ${NICENESS}));
} catch {}
const slots = os.availableParallelism();
let running = 0;
const queued = [];
process.on("disconnect", () => process.exit(0));
process.on("message", (job) => {
  queued.push(job);
  startNext();
});
function startNext() {
  while (running < slots && queued.length > 0) {
    running++;
    run(queued.shift());
  }
}
function run({ id, command, args, cwd, env }) {
  let answered = false;
  const answer = (reply) => {
    if (answered) return;
    answered = true;
    running--;
    process.send(reply);
    startNext();
  };
  let child;
  try {
    child = spawn(command, args, { cwd, env, stdio: ["ignore", "pipe", "pipe"] });
  } catch (error) {
    return answer({ id, error: error.message });
  }
  const out = [];
  const err = [];
  child.stdout.on("data", (chunk) => out.push(chunk));
  child.stderr.on("data", (chunk) => err.push(chunk));
  child.on("error", (error) => answer({ id, error: error.message }));
  child.on("close", (code, signal) => answer({ id, code, signal, stdout: Buffer.concat(out), stderr: Buffer.concat(err) }));
}
`;

let helper: ChildProcess | undefined;
let nextId = 0;
const waiting = new Map<number, { resolve(f: Finished): void; reject(e: Error): void }>();

/** While jobs are out, the helper keeps this process alive; otherwise it does not. */
function hold(child: ChildProcess, held: boolean): void {
  if (held) {
    child.ref();
    child.channel?.ref();
  } else {
    child.unref();
    child.channel?.unref();
  }
}

function theHelper(): ChildProcess {
  if (helper) return helper;
  // Its own environment is empty (each job brings one): no NODE_OPTIONS of the runner's.
  const made = spawn(process.execPath, ["--max-old-space-size=64", "-e", HELPER_SOURCE], {
    env: {},
    stdio: ["ignore", "ignore", "inherit", "ipc"],
    serialization: "advanced",
  });
  made.on("message", (reply: Reply) => {
    const w = waiting.get(reply.id);
    if (!w) return;
    waiting.delete(reply.id);
    if (waiting.size === 0) hold(made, false);
    if (reply.error !== undefined) return w.reject(new Error(reply.error));
    w.resolve({ code: reply.code ?? null, signal: reply.signal ?? null, stdout: Buffer.from(reply.stdout!), stderr: Buffer.from(reply.stderr!) });
  });
  const gone = (error: Error) => {
    if (helper === made) helper = undefined;
    for (const w of waiting.values()) w.reject(error);
    waiting.clear();
  };
  made.on("error", (error) => gone(new Error(`the process launcher could not start: ${error.message}`)));
  made.on("exit", (code, signal) => gone(new Error(`the process launcher exited (${signal ?? code})`)));
  helper = made;
  return made;
}

/** Runs `job` to its end from the helper. Rejects when it cannot be started. */
export function spawnViaHelper(job: SpawnJob): Promise<Finished> {
  const id = nextId++;
  return new Promise<Finished>((resolve, reject) => {
    const child = theHelper();
    waiting.set(id, { resolve, reject });
    hold(child, true);
    const env: Record<string, string> = {};
    for (const [key, value] of Object.entries(job.env)) if (value !== undefined) env[key] = value;
    child.send({ id, command: job.command, args: [...job.args], cwd: job.cwd, env }, (error) => {
      if (!error || !waiting.has(id)) return;
      waiting.delete(id);
      reject(new Error(`the process launcher did not take the job: ${error.message}`));
    });
  });
}
