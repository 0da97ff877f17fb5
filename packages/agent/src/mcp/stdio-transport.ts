// The transport of a stdio MCP server: the SDK's wire format, with the server leading a process
// group of its own (process/process-groups.ts), as Bash commands do. A server is often a launcher (npx, uv,
// a shell script) whose real server, and whatever that starts, are its children: ending the group
// ends them all, and the reaper ends it if this process dies first. The transport is closed when
// the server's own process exits, not when its pipes do, which children that outlive it may hold.
import { spawn, type ChildProcess } from "node:child_process";
import { PassThrough } from "node:stream";
import { getDefaultEnvironment } from "@modelcontextprotocol/sdk/client/stdio.js";
import { ReadBuffer, serializeMessage } from "@modelcontextprotocol/sdk/shared/stdio.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import { forgetGroup, signalGroup, trackGroup } from "../process/process-groups.ts";

export type StdioServerParams = {
  command: string;
  args: string[];
  cwd: string;
  /** Laid over the SDK's default environment (HOME, PATH, …). */
  env: Record<string, string>;
  maxBufferSize: number;
};

/** After stdin is closed, how long the server has to exit on its own; then SIGTERM to the group,
 * and SIGKILL this long after that. */
const EXIT_GRACE_MS = 500;
/** How long what is left of the group after the server exited has, after SIGTERM, before SIGKILL. */
const GROUP_GRACE_MS = 200;

/** How the server's process ended: its exit code, or the signal that ended it. */
export type StdioExit = { code: number; signal?: undefined } | { code?: undefined; signal: NodeJS.Signals };

export class StdioServerTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  /** The server's stderr, readable from before start(). */
  readonly stderr = new PassThrough();
  /** Set when the server's process has exited. */
  exit: StdioExit | undefined;
  #params: StdioServerParams;
  #readBuffer: ReadBuffer;
  #process: ChildProcess | undefined;
  #exited: Promise<void> = Promise.resolve();
  #closing: Promise<void> | undefined;

  constructor(params: StdioServerParams) {
    this.#params = params;
    this.#readBuffer = new ReadBuffer({ maxBufferSize: params.maxBufferSize });
  }

  /** Spawns the server. When it cannot be spawned (a command not found, or one spawn refuses
   * outright) the promise rejects and the transport is closed at once: onclose fires once in every
   * case, whether the server exited or never started. */
  start(): Promise<void> {
    if (this.#process) throw new Error("the stdio transport is already started");
    let child: ChildProcess;
    try {
      child = spawn(this.#params.command, this.#params.args, {
        cwd: this.#params.cwd,
        env: { ...getDefaultEnvironment(), ...this.#params.env },
        stdio: ["pipe", "pipe", "pipe"],
        detached: true,
      });
    } catch (error) {
      this.onclose?.();
      return Promise.reject(error);
    }
    this.#process = child;
    this.#exited = new Promise((resolve) => child.once("exit", () => resolve()));
    child.once("exit", (code, signal) => {
      this.exit = code === null ? { signal: signal! } : { code };
      this.#ended(child);
    });
    child.stdin!.on("error", (error) => this.onerror?.(error));
    child.stdout!.on("error", (error) => this.onerror?.(error));
    child.stdout!.on("data", (chunk: Buffer) => {
      try {
        this.#readBuffer.append(chunk);
      } catch (error) {
        this.onerror?.(error as Error);
        void this.close();
        return;
      }
      this.#readMessages();
    });
    child.stderr!.pipe(this.stderr);
    return new Promise((resolve, reject) => {
      child.once("spawn", () => {
        trackGroup(child.pid!);
        resolve();
      });
      child.once("error", (error) => {
        this.onerror?.(error);
        // A process that never started has no exit event to close the transport.
        if (child.pid === undefined) this.onclose?.();
        reject(error);
      });
    });
  }

  #readMessages(): void {
    for (;;) {
      let message: JSONRPCMessage | null;
      try {
        message = this.#readBuffer.readMessage();
      } catch (error) {
        this.onerror?.(error as Error);
        continue;
      }
      if (message === null) return;
      this.onmessage?.(message);
    }
  }

  /** The server's process exited: what is left of its group goes, its pipes are let go. */
  #ended(child: ChildProcess): void {
    const group = child.pid!;
    signalGroup(group, "SIGTERM");
    setTimeout(() => signalGroup(group, "SIGKILL"), GROUP_GRACE_MS).unref();
    child.stdin!.destroy();
    child.stdout!.destroy();
    child.stderr!.unpipe(this.stderr);
    child.stderr!.destroy();
    this.stderr.end();
    this.#readBuffer.clear();
    this.onclose?.();
  }

  send(message: JSONRPCMessage): Promise<void> {
    const stdin = this.#process?.exitCode === null && this.#process.signalCode === null ? this.#process.stdin : undefined;
    if (!stdin || stdin.destroyed) return Promise.reject(new Error("Not connected"));
    return new Promise((resolve) => {
      if (stdin.write(serializeMessage(message))) resolve();
      else stdin.once("drain", resolve);
    });
  }

  /** Stops the server at once, without waiting for it to exit on its own: SIGTERM to its group,
   * unless it has exited or never started. For a server given up on before its session began;
   * close() still escalates and waits until it is gone. */
  terminate(): void {
    const child = this.#process;
    if (child?.pid && child.exitCode === null && child.signalCode === null) signalGroup(child.pid, "SIGTERM");
  }

  /** Closes stdin, which asks the server to exit; a server still there after EXIT_GRACE_MS gets
   * SIGTERM, and SIGKILL as long after, with every process of its group. */
  close(): Promise<void> {
    this.#closing ??= this.#close();
    return this.#closing;
  }

  async #close(): Promise<void> {
    const child = this.#process;
    if (!child?.pid || child.exitCode !== null || child.signalCode !== null) return;
    child.stdin!.end();
    const exited = (ms: number) => Promise.race([this.#exited.then(() => true), delay(ms).then(() => false)]);
    if (await exited(EXIT_GRACE_MS)) return;
    signalGroup(child.pid, "SIGTERM");
    if (await exited(EXIT_GRACE_MS)) return;
    signalGroup(child.pid, "SIGKILL");
    await exited(EXIT_GRACE_MS);
    forgetGroup(child.pid);
  }
}

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms).unref());
}
