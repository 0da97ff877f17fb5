// JSON-RPC 2.0 over a pair of byte streams with LSP framing: requests with ids and timeouts,
// notifications, and the requests the other side sends, answered by a handler.
import type { Readable, Writable } from "node:stream";
import { encodeMessage, MessageReader } from "./framing.ts";

/** An error the other side answered with (a JSON-RPC error object). */
export class RpcError extends Error {
  readonly code: number;
  constructor(code: number, message: string) {
    super(message);
    this.code = code;
  }
}

export const METHOD_NOT_FOUND = -32601;

export type RpcHandlers = {
  /** Answers a request of the other side; a throw becomes an error answer (an RpcError keeps its
   * code), an unknown method should throw RpcError(METHOD_NOT_FOUND). */
  onRequest(method: string, params: unknown): unknown;
  onNotification(method: string, params: unknown): void;
  /** The stream broke (not framed as LSP): the connection is closed with the error this returns,
   * else with `error`. */
  onBroken?(error: Error): Error | void;
};

type Pending = { method: string; resolve(value: unknown): void; reject(error: Error): void; timer: NodeJS.Timeout; signal?: AbortSignal; onAbort?: () => void };

export type RequestOptions = { timeoutMs: number; signal?: AbortSignal };

export class RpcConnection {
  #output: Writable;
  #handlers: RpcHandlers;
  #pending = new Map<number, Pending>();
  #nextId = 1;
  #closed: Error | undefined;

  constructor(input: Readable, output: Writable, handlers: RpcHandlers) {
    this.#output = output;
    this.#handlers = handlers;
    const reader = new MessageReader();
    input.on("data", (chunk: Buffer) => {
      if (this.#closed) return;
      let messages: unknown[];
      try {
        messages = reader.push(chunk);
      } catch (error) {
        const broken = new Error(`the server's output is not LSP: ${(error as Error).message}`);
        this.close(handlers.onBroken?.(broken) ?? broken);
        return;
      }
      for (const message of messages) this.#receive(message);
    });
    output.on("error", () => {});
  }

  /** Sends a request; resolves with its result, rejects with an RpcError answer, on timeout, on
   * `signal`, or when the connection closes first. A request given up on is cancelled
   * ($/cancelRequest). */
  request(method: string, params: unknown, options: RequestOptions): Promise<unknown> {
    if (this.#closed) return Promise.reject(this.#closed);
    if (options.signal?.aborted) return Promise.reject(new Error(`${method} was cancelled`));
    const id = this.#nextId++;
    return new Promise((resolve, reject) => {
      const giveUp = (error: Error) => {
        if (!this.#settle(id)) return;
        this.notify("$/cancelRequest", { id });
        reject(error);
      };
      const timer = setTimeout(() => giveUp(new Error(`no answer to ${method} within ${options.timeoutMs} ms`)), options.timeoutMs);
      timer.unref();
      const pending: Pending = { method, resolve, reject, timer };
      if (options.signal) {
        pending.signal = options.signal;
        pending.onAbort = () => giveUp(new Error(`${method} was cancelled`));
        options.signal.addEventListener("abort", pending.onAbort, { once: true });
      }
      this.#pending.set(id, pending);
      this.#send({ jsonrpc: "2.0", id, method, ...(params !== undefined && { params }) });
    });
  }

  notify(method: string, params?: unknown): void {
    if (this.#closed) return;
    this.#send({ jsonrpc: "2.0", method, ...(params !== undefined && { params }) });
  }

  /** Rejects every request still waiting with `reason`; later ones reject at once. */
  close(reason: Error): void {
    if (this.#closed) return;
    this.#closed = reason;
    for (const id of [...this.#pending.keys()]) {
      const pending = this.#pending.get(id)!;
      this.#settle(id);
      pending.reject(reason);
    }
  }

  #send(message: unknown): void {
    try {
      this.#output.write(encodeMessage(message));
    } catch {
      // A closed pipe: the process's exit closes the connection.
    }
  }

  /** Forgets request `id`; false when it was already settled. */
  #settle(id: number): boolean {
    const pending = this.#pending.get(id);
    if (!pending) return false;
    this.#pending.delete(id);
    clearTimeout(pending.timer);
    if (pending.onAbort) pending.signal?.removeEventListener("abort", pending.onAbort);
    return true;
  }

  #receive(message: unknown): void {
    if (typeof message !== "object" || message === null) return;
    const m = message as { id?: number | string | null; method?: unknown; params?: unknown; result?: unknown; error?: { code?: unknown; message?: unknown } };
    if (typeof m.method === "string") {
      if (m.id === undefined || m.id === null) this.#handlers.onNotification(m.method, m.params);
      else void this.#answer(m.id, m.method, m.params);
      return;
    }
    if (typeof m.id !== "number") return;
    const pending = this.#pending.get(m.id);
    if (!pending || !this.#settle(m.id)) return;
    if (m.error) pending.reject(new RpcError(typeof m.error.code === "number" ? m.error.code : -32603, typeof m.error.message === "string" ? m.error.message : "unknown error"));
    else pending.resolve(m.result ?? null);
  }

  async #answer(id: number | string, method: string, params: unknown): Promise<void> {
    try {
      // A handler that throws at once answers after the same wait as one that returns, so that
      // answers go out in the order the requests came.
      const result = await Promise.resolve().then(() => this.#handlers.onRequest(method, params));
      this.#send({ jsonrpc: "2.0", id, result: result ?? null });
    } catch (error) {
      const code = error instanceof RpcError ? error.code : -32603;
      this.#send({ jsonrpc: "2.0", id, error: { code, message: (error as Error).message } });
    }
  }
}
