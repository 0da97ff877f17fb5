// One language server: its process, started at the first call that needs it (initialize with the
// project's root, initialized, the settings), the documents it has open, kept in step with the
// files on disk, and the diagnostics it publishes. A server that fails to start or crashes is
// started again by a later call, up to its maxRestarts; then each call is told why it is not there.
import { spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs/promises";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { forgetGroup, signalGroup, trackGroup } from "../process/process-groups.ts";
import { extensionOf, type LspServerConfig } from "./config.ts";
import { clientCapabilities, serverRequest } from "./handshake.ts";
import { RpcConnection } from "./rpc.ts";
import type { LspDiagnostic } from "./types.ts";

export type LspServerPlace = {
  /** The project's root: rootUri, the workspace folder, and the server's working directory. */
  root: string;
  /** The run's environment, under the server's own `env`. */
  env: Readonly<Record<string, string | undefined>>;
};

/** How long a request other than initialize may take. */
export const REQUEST_TIMEOUT_MS = 30_000;
/** How long shutdown may take before the server is ended anyway, and how long it has to exit. */
const STOP_GRACE_MS = 1_000;
const STDERR_LINES = 10;
const STDERR_WAIT_MS = 200;
/** Files larger than this are not sent to a server. */
const MAX_DOCUMENT_BYTES = 16 * 1024 * 1024;

/** A started process, with the documents it has open (by uri) and the syncs of them under way. */
type Running = {
  child: ChildProcess;
  rpc: RpcConnection;
  exited: Promise<void>;
  documents: Map<string, { version: number; text: string }>;
  syncing: Map<string, Promise<unknown>>;
};

export class LspServer {
  readonly config: LspServerConfig;
  #place: LspServerPlace;
  #running: Running | undefined;
  #starting: Promise<Running> | undefined;
  #starts = 0;
  /** Why the last start failed or the server last ended, when it did. */
  #failure: { reason: string; crashed: boolean } | undefined;
  #stderr = "";
  #stopped = false;
  /** The process group of the server while it starts (until initialize is answered). */
  #startingGroup: number | undefined;
  #diagnostics = new Map<string, { items: LspDiagnostic[]; published: number }>();
  #waiters = new Set<() => void>();

  constructor(config: LspServerConfig, place: LspServerPlace) {
    this.config = config;
    this.#place = place;
  }

  /** Whether the server is up now (started, initialized, not exited). */
  get running(): boolean {
    return this.#running !== undefined;
  }

  /** Sends `file` as it is on disk now (didOpen the first time, didChange when it changed since:
   * `sent`), starting the server first if need be. Rejects with why the server or the file is not
   * there. Calls on the same file take turns, so that the text read last is the one sent last. */
  async open(file: string, signal?: AbortSignal): Promise<{ uri: string; text: string; sent: boolean }> {
    const running = await this.#ready(signal);
    const uri = pathToFileURL(file).href;
    const turn = (running.syncing.get(uri) ?? Promise.resolve()).catch(() => {}).then(() => this.#sync(running, file, uri));
    running.syncing.set(uri, turn);
    try {
      return await turn;
    } finally {
      if (running.syncing.get(uri) === turn) running.syncing.delete(uri);
    }
  }

  async #sync(running: Running, file: string, uri: string): Promise<{ uri: string; text: string; sent: boolean }> {
    const stat = await fs.stat(file);
    if (stat.size > MAX_DOCUMENT_BYTES) throw new Error(`${file} is too large (${stat.size} bytes) to send to a language server`);
    const text = await fs.readFile(file, "utf8");
    const open = running.documents.get(uri);
    const sent = open?.text !== text;
    if (!open) {
      running.documents.set(uri, { version: 1, text });
      running.rpc.notify("textDocument/didOpen", { textDocument: { uri, languageId: this.config.extensionToLanguage[extensionOf(file)] ?? "plaintext", version: 1, text } });
    } else if (open.text !== text) {
      open.version += 1;
      open.text = text;
      running.rpc.notify("textDocument/didChange", { textDocument: { uri, version: open.version }, contentChanges: [{ text }] });
    }
    return { uri, text, sent };
  }

  /** Tells the server `uri` was saved (after open() sent what changed). */
  saved(uri: string, text: string): void {
    this.#running?.rpc.notify("textDocument/didSave", { textDocument: { uri }, text });
  }

  async request(method: string, params: unknown, signal?: AbortSignal): Promise<unknown> {
    const running = await this.#ready(signal);
    return running.rpc.request(method, params, { timeoutMs: REQUEST_TIMEOUT_MS, ...(signal && { signal }) });
  }

  /** The diagnostics last published for `uri`, and how many times they were. */
  diagnostics(uri: string): { items: LspDiagnostic[]; published: number } {
    return this.#diagnostics.get(uri) ?? { items: [], published: 0 };
  }

  /** Resolves when diagnostics for `uri` are published for more than the `published`th time, the
   * server ends, or `ms` pass, whichever comes first. */
  async diagnosticsAfter(uri: string, published: number, ms: number): Promise<void> {
    if (!this.#running) return;
    await new Promise<void>((resolve) => {
      const check = () => {
        if (this.diagnostics(uri).published <= published && this.#running) return;
        done();
      };
      const done = () => {
        clearTimeout(timer);
        this.#waiters.delete(check);
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.#waiters.add(check);
    });
  }

  /** Asks the server to shut down and exit, then ends its process group; later calls start none. */
  async stop(): Promise<void> {
    this.#stopped = true;
    // A server still starting is ended at once: its initialize may take all of its startupTimeout.
    if (this.#startingGroup !== undefined) signalGroup(this.#startingGroup, "SIGKILL");
    const running = this.#running ?? (await this.#starting?.catch(() => undefined));
    if (!running) return;
    await running.rpc.request("shutdown", undefined, { timeoutMs: STOP_GRACE_MS }).catch(() => {});
    running.rpc.notify("exit");
    running.child.stdin?.end();
    const group = running.child.pid!;
    const exited = (ms: number) => Promise.race([running.exited.then(() => true), delay(ms).then(() => false)]);
    if (!(await exited(STOP_GRACE_MS))) {
      signalGroup(group, "SIGTERM");
      if (!(await exited(STOP_GRACE_MS))) signalGroup(group, "SIGKILL");
    }
    // What the server left running in its group goes with it.
    signalGroup(group, "SIGKILL");
    forgetGroup(group);
  }

  #ready(signal?: AbortSignal): Promise<Running> {
    if (this.#running) return Promise.resolve(this.#running);
    if (this.#stopped) return Promise.reject(new Error(`LSP server "${this.config.name}" has been stopped (the session is ending)`));
    if (!this.#starting) {
      const refused = this.#refusal();
      if (refused) return Promise.reject(new Error(refused));
      this.#starting = this.#start().finally(() => {
        this.#starting = undefined;
        this.#startingGroup = undefined;
      });
    }
    const starting = this.#starting;
    if (!signal) return starting;
    return new Promise((resolve, reject) => {
      const onAbort = () => reject(new Error(`cancelled while LSP server "${this.config.name}" was starting`));
      if (signal.aborted) onAbort();
      signal.addEventListener("abort", onAbort, { once: true });
      starting.then(resolve, reject).finally(() => signal.removeEventListener("abort", onAbort));
    });
  }

  /** Why no new start is tried, after failures. */
  #refusal(): string | undefined {
    const failure = this.#failure;
    if (!failure) return undefined;
    const again = failure.crashed && !this.config.restartOnCrash ? "it is not started again (restartOnCrash is false)" : this.#starts > this.config.maxRestarts ? `it was started ${this.#starts} times and is not started again (maxRestarts ${this.config.maxRestarts})` : undefined;
    return again && `LSP server "${this.config.name}" is not available: ${failure.reason}; ${again}.`;
  }

  async #start(): Promise<Running> {
    this.#starts += 1;
    this.#stderr = "";
    const { config } = this;
    let child: ChildProcess;
    try {
      child = spawn(config.command, config.args, { cwd: this.#place.root, env: { ...this.#place.env, ...config.env }, stdio: ["pipe", "pipe", "pipe"], detached: true });
    } catch (error) {
      throw this.#failed(`cannot run ${config.command}: ${(error as Error).message}`, false);
    }
    const exited = new Promise<void>((resolve) => child.once("close", () => resolve()));
    const spawned = await new Promise<Error | undefined>((resolve) => {
      child.once("spawn", () => resolve(undefined));
      child.once("error", (error) => resolve(error));
    });
    if (spawned) throw this.#failed(`cannot run ${config.command}: ${spawned.message}`, false);
    trackGroup(child.pid!);
    this.#startingGroup = child.pid!;
    if (this.#stopped) signalGroup(child.pid!, "SIGKILL");
    child.stderr!.on("data", (chunk: Buffer) => (this.#stderr = (this.#stderr + chunk.toString("utf8")).slice(-4000)));
    const rpc = new RpcConnection(child.stdout!, child.stdin!, {
      onRequest: (method, params) => serverRequest(method, params, { root: this.#place.root, settings: config.settings }),
      onNotification: (method, params) => this.#notified(method, params),
      onBroken: (error) => {
        signalGroup(child.pid!, "SIGKILL");
        // While starting, initialize fails with `error`; after, the server is ended for it, and gone
        // for the calls that come before its exit is seen.
        if (initializing) return;
        if (this.#running === running) this.#running = undefined;
        return (broken = this.#failed(`was ended: ${error.message}`, true));
      },
    });
    const running: Running = { child, rpc, exited, documents: new Map(), syncing: new Map() };
    let initializing = true;
    // Why the server was ended after it started, when its output broke: that is the failure told.
    let broken: Error | undefined;
    // Set when initialize failed and the process is ended for it: that failure is the one told.
    let gaveUp = false;
    // The reason is told once the server's stderr is read to its end (it may come after the exit),
    // or a moment after the exit when a child of the server holds the pipe open.
    const stderrEnded = new Promise<void>((resolve) => child.stderr!.once("close", () => resolve()));
    child.once("exit", async (code, signal) => {
      await Promise.race([stderrEnded, delay(STDERR_WAIT_MS)]);
      const how = code === null ? `was ended by ${signal}` : `exited with code ${code}`;
      const reason = this.#stopped || gaveUp ? new Error(`LSP server "${config.name}" has been stopped`) : (broken ?? this.#failed(`${initializing ? "exited while starting: it " : ""}${how}`, !initializing));
      rpc.close(reason);
      if (this.#running === running) this.#running = undefined;
      this.#diagnostics.clear();
      for (const wake of [...this.#waiters]) wake();
      forgetGroup(child.pid!);
    });
    const root = this.#place.root;
    try {
      await rpc.request(
        "initialize",
        {
          processId: process.pid,
          clientInfo: { name: "harness" },
          rootUri: pathToFileURL(root).href,
          rootPath: root,
          workspaceFolders: [{ uri: pathToFileURL(root).href, name: path.basename(root) }],
          capabilities: clientCapabilities,
          ...(config.initializationOptions !== undefined && { initializationOptions: config.initializationOptions }),
        },
        { timeoutMs: config.startupTimeoutMs },
      );
    } catch (error) {
      const message = (error as Error).message;
      if (message.startsWith(`LSP server "${config.name}"`)) throw error;
      gaveUp = true;
      signalGroup(child.pid!, "SIGKILL");
      throw this.#failed(`failed to initialize: ${message}`, false);
    }
    initializing = false;
    rpc.notify("initialized", {});
    if (config.settings !== undefined) rpc.notify("workspace/didChangeConfiguration", { settings: config.settings });
    this.#running = running;
    this.#failure = undefined;
    return running;
  }

  /** Records why the server is not there, and the error a call gets: the reason, with the last
   * lines of the server's stderr. */
  #failed(reason: string, crashed: boolean): Error {
    const tail = this.#stderr.trimEnd().split("\n").slice(-STDERR_LINES).join("\n");
    this.#failure = { reason, crashed };
    return new Error(`LSP server "${this.config.name}" (${this.config.command}) ${reason}${tail ? `\nIts last lines on stderr:\n${tail}` : ""}`);
  }

  #notified(method: string, params: unknown): void {
    if (method !== "textDocument/publishDiagnostics") return;
    const p = params as { uri?: unknown; diagnostics?: unknown };
    if (typeof p?.uri !== "string" || !Array.isArray(p.diagnostics)) return;
    const published = (this.#diagnostics.get(p.uri)?.published ?? 0) + 1;
    this.#diagnostics.set(p.uri, { items: p.diagnostics as LspDiagnostic[], published });
    for (const wake of [...this.#waiters]) wake();
  }
}

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms).unref());
}
