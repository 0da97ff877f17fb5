// Helpers of the tests that spawn the real `harness` command against the fake model servers.
import assert from "node:assert/strict";
import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before } from "node:test";
import { fileURLToPath } from "node:url";
import { MinimalClient, startFakeAnthropic, steerQueued, startHarnessServer, type FakeAnthropic, type HarnessProcess } from "@harness/test-utils";
import { inTerminal } from "./test-screen.ts";

export const root = fileURLToPath(new URL("../../../", import.meta.url));
export const bin = join(root, "packages/cli/bin/harness");

export type Result = { code: number | null; stdout: string; stderr: string };

/** The home directory of the commands these tests start (unless a test gives its own): runs keep
 * their conversations under ~/.harness, and the ~/.claude of whoever runs the tests must not leak
 * into them. */
const testHome = mkdtempSync(join(tmpdir(), "harness-cli-home-"));
process.on("exit", () => rmSync(testHome, { recursive: true, force: true }));

/** Runs `harness args…`; `stdin`: text piped in and ended, or "open": a pipe left open. */
export function harness(args: string[], env: Record<string, string>, opts: { cwd?: string; onStdout?: (text: string) => void; stdin?: string | { open: true } } = {}) {
  return started(spawn("bash", [bin, ...args], options(env, opts)), opts);
}

/** `harness chat args…` as "tester" of the server at `url`, with `input` as its piped standard
 * input; `onStdout` sees the output so far as it comes. A chat that does not end by itself is killed
 * after a minute, failing its test instead of holding up the suite. */
export async function pipedChat(url: string, args: string[], input: string, env: Record<string, string> = {}, onStdout?: (text: string, child: ChildProcess) => void): Promise<Result> {
  const child = spawn("bash", [bin, "chat", ...args], {
    cwd: root,
    env: { ...process.env, NO_COLOR: "1", HARNESS_URL: url, HARNESS_USER: "tester", ...env },
    stdio: ["pipe", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  child.stdout.setEncoding("utf8").on("data", (d: string) => {
    stdout += d;
    onStdout?.(stdout, child);
  });
  child.stderr.setEncoding("utf8").on("data", (d: string) => (stderr += d));
  child.stdin.end(input);
  const stuck = setTimeout(() => child.kill("SIGKILL"), 60_000);
  const [code] = await once(child, "close");
  clearTimeout(stuck);
  return { code: code as number | null, stdout, stderr };
}

/** Runs the shell command `line`, in which `$HARNESS` is the harness command. */
export function harnessShell(line: string, env: Record<string, string>, opts: { cwd?: string } = {}) {
  return started(spawn("bash", ["-c", line], options({ HARNESS: bin, ...env }, opts)), {});
}

function options(env: Record<string, string>, opts: { cwd?: string; stdin?: unknown }) {
  return {
    cwd: opts.cwd ?? root,
    env: { ...process.env, HOME: testHome, CLAUDE_CONFIG_DIR: "", NO_COLOR: "1", HARNESS_MODEL_RETRIES: "0", HARNESS_RETRY_BASE_MS: "1", ...env },
    stdio: [opts.stdin === undefined ? "ignore" : "pipe", "pipe", "pipe"] as ("ignore" | "pipe")[],
  };
}

function started(child: ChildProcess, opts: { onStdout?: (text: string) => void; stdin?: string | { open: true } }) {
  if (typeof opts.stdin === "string") child.stdin!.end(opts.stdin);
  let stdout = "";
  let stderr = "";
  child.stdout!.setEncoding("utf8").on("data", (d: string) => {
    stdout += d;
    opts.onStdout?.(stdout);
  });
  child.stderr!.setEncoding("utf8").on("data", (d: string) => (stderr += d));
  const result = once(child, "close").then(([code]): Result => ({ code: code as number | null, stdout, stderr }));
  return { child, result };
}

export async function withFake(t: { after(fn: () => unknown): void }, fake: Promise<FakeAnthropic>) {
  const f = await fake;
  t.after(() => f.close());
  return f;
}

/** The environment of a `harness run` on Amazon Bedrock at `baseUrl` with no credential of its own
 * (no Anthropic key, no AWS keys or profile): each test adds the ones it is about. */
export function bedrockRunEnv(baseUrl: string): Record<string, string> {
  return {
    ANTHROPIC_API_KEY: "",
    ANTHROPIC_AUTH_TOKEN: "",
    CLAUDE_CODE_USE_BEDROCK: "1",
    AWS_REGION: "us-east-1",
    ANTHROPIC_BEDROCK_BASE_URL: baseUrl,
    AWS_ACCESS_KEY_ID: "",
    AWS_SECRET_ACCESS_KEY: "",
    AWS_SESSION_TOKEN: "",
    AWS_BEARER_TOKEN_BEDROCK: "",
    AWS_PROFILE: "",
  };
}

export function tempDir(t: { after(fn: () => unknown): void }): string {
  const dir = mkdtempSync(join(tmpdir(), "harness-cli-"));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** A plugin "greeter" under `dir`/plugins with one command, /greeter:hello, that asks the model to
 * greet $ARGUMENTS warmly; answers the plugin's directory. */
export function greeterPlugin(dir: string): string {
  const plugin = join(dir, "plugins", "greeter");
  mkdirSync(join(plugin, ".claude-plugin"), { recursive: true });
  mkdirSync(join(plugin, "commands"), { recursive: true });
  writeFileSync(join(plugin, ".claude-plugin", "plugin.json"), JSON.stringify({ name: "greeter", version: "0.1.0" }));
  writeFileSync(join(plugin, "commands", "hello.md"), "---\ndescription: Greet someone\n---\nGreet $ARGUMENTS warmly.");
  return plugin;
}

/** `harness run`'s flags for the stream-json protocol both ways, and its lines: one JSON value per
 * line, a user message, a control request; `streamLinesOf` parses what the run wrote. */
export const STREAM_JSON = ["--input-format", "stream-json", "--output-format", "stream-json"];
export const jsonLine = (value: unknown) => `${JSON.stringify(value)}\n`;
export const userLine = (content: unknown) => jsonLine({ type: "user", message: { role: "user", content } });
export const controlLine = (id: string, request: Record<string, unknown>) => jsonLine({ type: "control_request", request_id: id, request });
export const streamLinesOf = (stdout: string) => stdout.trimEnd().split("\n").map((text) => JSON.parse(text) as { type: string; [key: string]: any });

/** A real server process on the fake Anthropic server (no retries), with a data directory of its
 * own, for the chat's tests (`env`: more of the server's environment); `stop` ends both and removes
 * the directory. */
export async function startChatServer(prefix: string, env: Record<string, string> = {}): Promise<{ fake: FakeAnthropic; server: HarnessProcess; dataDir: string; stop(): Promise<void> }> {
  const fake = await startFakeAnthropic();
  const dataDir = mkdtempSync(join(tmpdir(), prefix));
  const server = await startHarnessServer({
    dataDir,
    env: { ANTHROPIC_API_KEY: "test-key", ANTHROPIC_BASE_URL: fake.url, HARNESS_MODEL_RETRIES: "0", HARNESS_RETRY_BASE_MS: "1", ...env },
  });
  return {
    fake,
    server,
    dataDir,
    async stop() {
      await server.stop();
      await fake.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** For the tests of one file: a chat server (startChatServer) started before them, and stopped and
 * its data directory removed after; `url` is the server's, `fake` its fake model. `prepare` runs on
 * the data directory once the server is up: a file's own `before` cannot, as node:test starts a
 * file's top-level `before` hooks together, not one after the other. */
export function chatServerForFile(prefix: string, env: Record<string, string> = {}, prepare?: (dataDir: string) => void): { readonly fake: FakeAnthropic; readonly url: string; readonly dataDir: string } {
  let started: Awaited<ReturnType<typeof startChatServer>> | undefined;
  before(async () => {
    started = await startChatServer(prefix, env);
    prepare?.(started.dataDir);
  });
  after(() => started?.stop());
  const get = () => {
    if (!started) throw new Error("the chat server starts before the file's tests");
    return started;
  };
  return {
    get fake() {
      return get().fake;
    },
    get url() {
      return get().server.url;
    },
    get dataDir() {
      return get().dataDir;
    },
  };
}

/** Resolves once the run of session `sessionId` of `userId` on the server at `url` holds a steer
 * (the state's `steers` lists one queued), watched as a client of its own: a reply released after
 * that ends a turn the steer joins, never the run it would start as the next prompt. */
export async function steerHeld(url: string, userId: string, sessionId: string): Promise<void> {
  const watcher = await MinimalClient.connect(url, { userId, sessionId });
  try {
    await watcher.waitForState(steerQueued, 30_000, `a steer queued in ${userId}/${sessionId}`);
  } finally {
    await watcher.close();
  }
}

/** A proxy to the server at `url` that hands on what the server sends `delayMs` late (a distant
 * server), and what the client sends to `heard` as well; answers the proxy's URL. */
export async function slowLink(t: { after(fn: () => unknown): void }, url: string, delayMs: number, heard?: (data: string) => void): Promise<string> {
  const target = new URL(url);
  const sockets = new Set<Socket>();
  const proxy = createServer((client) => {
    const upstream = new (client.constructor as typeof Socket)().connect(Number(target.port), target.hostname);
    sockets.add(client).add(upstream);
    client.on("data", (data) => {
      heard?.(data.toString("latin1"));
      upstream.write(data);
    });
    upstream.on("data", (data) => setTimeout(() => client.writable && client.write(data), delayMs));
    client.on("close", () => upstream.destroy());
    upstream.on("close", () => setTimeout(() => client.destroy(), delayMs));
    for (const socket of [client, upstream]) socket.on("error", () => undefined);
  });
  await new Promise<void>((resolve) => proxy.listen(0, "127.0.0.1", resolve));
  t.after(() => {
    for (const socket of sockets) socket.destroy();
    proxy.close();
  });
  const { port } = proxy.address() as { port: number };
  return `http://127.0.0.1:${port}`;
}

/** A model that has a sub-agent (Task) touch sub.txt with Bash, then touches main.txt itself: for
 * tests of a permission approved inside a sub-agent holding for the main agent's later calls. */
export const SUB_AGENT_THEN_MAIN_BASH = [
  { toolUses: [{ id: "toolu_task", name: "Task", input: { description: "Make a file", prompt: "Make sub.txt", subagent_type: "general-purpose" } }] },
  { toolUses: [{ id: "toolu_sub", name: "Bash", input: { command: "touch sub.txt" } }] },
  { text: "Made sub.txt." },
  { toolUses: [{ id: "toolu_main", name: "Bash", input: { command: "touch main.txt" } }] },
  { text: "Made both." },
];

/** For the tests of one file: a fake Anthropic server started before them and closed after, and
 * temporary directories (`dir(prefix)`) removed after them. */
export function fakeModelForFile(): { readonly fake: FakeAnthropic; dir(prefix: string): string } {
  let fake: FakeAnthropic | undefined;
  const dirs: string[] = [];
  before(async () => {
    fake = await startFakeAnthropic();
  });
  after(async () => {
    await fake?.close();
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });
  return {
    get fake() {
      if (!fake) throw new Error("the fake model starts before the file's tests");
      return fake;
    },
    dir(prefix) {
      const dir = mkdtempSync(join(tmpdir(), prefix));
      dirs.push(dir);
      return dir;
    },
  };
}

/** `harness chat args` (shell words) in a terminal of its own (inTerminal), in `cwd` (the
 * repository's root unless given), with this process's environment, TERM=xterm, the tests' home and
 * `env` over them. */
export function chatInTerminal(t: { after(fn: () => unknown): void }, args: string, options: { cwd?: string; env?: NodeJS.ProcessEnv; columns: number }) {
  const env: NodeJS.ProcessEnv = { ...process.env, TERM: "xterm", ...options.env };
  // The tests' home unless given: a local chat keeps its sessions in ~/.harness/projects.
  if (options.env?.HOME === undefined) env.HOME = testHome;
  return inTerminal(t, `exec bash ${JSON.stringify(bin)} chat ${args}`, { cwd: options.cwd ?? root, env, columns: options.columns });
}

/** Ctrl+D at the chat's terminal, and the chat ends with status 0. */
export async function leaveChat(chat: { type(keys: string): unknown; closed: Promise<number | null> }): Promise<void> {
  chat.type("\x04");
  assert.equal(await chat.closed, 0);
}

export const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** `harness chat --local` (acceptEdits, against `fakeUrl`, a home of its own beside `cwd`) at a
 * terminal `columns` wide, in the project `cwd`, whose statusLine command prints `status` (two lines
 * make two status rows, above the mode's row); `shell` runs before the chat in its terminal. */
export function localChatWithStatus(t: { after(fn: () => unknown): void }, o: { fakeUrl: string; cwd: string; status: string; columns: number; shell?: string }) {
  const home = `${o.cwd}-home`;
  mkdirSync(join(o.cwd, ".claude"), { recursive: true });
  mkdirSync(join(home, ".claude"), { recursive: true });
  const script = join(home, "statusline.mjs");
  writeFileSync(script, `process.stdin.resume().on("end", () => console.log(${JSON.stringify(o.status)}));`);
  const statusLine = { type: "command", command: `${JSON.stringify(process.execPath)} ${JSON.stringify(script)}` };
  writeFileSync(join(o.cwd, ".claude", "settings.local.json"), JSON.stringify({ statusLine }));
  const line = `${o.shell ?? ""}exec bash ${JSON.stringify(bin)} chat --local --model claude-sonnet-4-5 --permission-mode acceptEdits`;
  const env = { ...process.env, HOME: home, ANTHROPIC_API_KEY: "test-key", ANTHROPIC_BASE_URL: o.fakeUrl, HARNESS_USER: "me", TERM: "xterm", NO_COLOR: "1", HARNESS_BUNDLE: "0" };
  return inTerminal(t, line, { cwd: o.cwd, env, columns: o.columns });
}

/** A reply that says nothing until `release` is called. */
export function heldReply(text: string) {
  const gate = Promise.withResolvers<void>();
  return {
    reply: {
      async *textChunks() {
        await gate.promise;
        yield text;
      },
    },
    release: () => gate.resolve(),
  };
}
