// Runs short-lived commands (git, for checkpoints) from a worker thread. Starting a process blocks
// the thread that starts it for 2–5 ms (longer the larger the heap); on the main thread of a runner
// that serves many sessions, a burst of runs starting would stall every stream it carries.
import { Worker } from "node:worker_threads";

export type Finished = { code: number | null; signal: string | null; stdout: Buffer; stderr: Buffer };
export type SpawnJob = { command: string; args: readonly string[]; cwd?: string; env: Record<string, string | undefined> };

type Reply = { id: number; error?: string; code?: number | null; signal?: string | null; stdout?: Uint8Array; stderr?: Uint8Array };

// CommonJS, evaluated in the worker: one job per message, answered once.
const WORKER_SOURCE = `
const { parentPort } = require("node:worker_threads");
const { spawn } = require("node:child_process");
parentPort.on("message", ({ id, command, args, cwd, env }) => {
  let answered = false;
  const answer = (reply) => {
    if (answered) return;
    answered = true;
    parentPort.postMessage(reply);
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
});
`;

let worker: Worker | undefined;
let nextId = 0;
const waiting = new Map<number, { resolve(f: Finished): void; reject(e: Error): void }>();

function failAll(error: Error): void {
  for (const w of waiting.values()) w.reject(error);
  waiting.clear();
}

function theWorker(): Worker {
  if (worker) return worker;
  const made = new Worker(WORKER_SOURCE, { eval: true, stdout: false, stderr: false });
  made.unref();
  made.on("message", (reply: Reply) => {
    const w = waiting.get(reply.id);
    if (!w) return;
    waiting.delete(reply.id);
    if (waiting.size === 0) made.unref();
    if (reply.error !== undefined) return w.reject(new Error(reply.error));
    w.resolve({ code: reply.code ?? null, signal: reply.signal ?? null, stdout: Buffer.from(reply.stdout!), stderr: Buffer.from(reply.stderr!) });
  });
  const gone = (error: Error) => {
    if (worker === made) worker = undefined;
    failAll(error);
  };
  made.on("error", gone);
  made.on("exit", (code) => gone(new Error(`the process launcher thread exited (${code})`)));
  worker = made;
  return made;
}

/** Runs `job` to its end from the launcher thread. Rejects when it cannot be started. */
export function spawnOffThread(job: SpawnJob): Promise<Finished> {
  const id = nextId++;
  return new Promise<Finished>((resolve, reject) => {
    const w = theWorker();
    waiting.set(id, { resolve, reject });
    // Referenced while a job is out, so that the process waits for its answer.
    w.ref();
    const env: Record<string, string> = {};
    for (const [key, value] of Object.entries(job.env)) if (value !== undefined) env[key] = value;
    w.postMessage({ id, command: job.command, args: [...job.args], cwd: job.cwd, env });
  });
}
