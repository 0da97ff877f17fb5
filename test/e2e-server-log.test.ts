// The log of a real `harness serve`, as a team's log shipper reads it: HARNESS_LOG_FORMAT=json
// gives one JSON object a line (time, level, msg and the line's fields), HARNESS_LOG_TIMESTAMPS
// puts the time before each text line (on its own when the output is a file), and bad values of
// either, or of HARNESS_LOG_LEVEL, stop the server at start naming the variable.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { closeSync, openSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { MinimalClient, SERVER_GC_FLAGS, startHarnessServer, waitFor } from "@harness/test-utils";
import { fakeModelForFile } from "./fake-model-support.ts";

const { fake, newDataDir, modelEnv } = fakeModelForFile("harness-server-log-");

const TOKEN = "a-log-token-0123456789";
const ISO_TIME = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

type Entry = { time: string; level: string; msg: string; [field: string]: unknown };

/** Each line of `output` as the JSON object it must be. */
function entries(output: string): Entry[] {
  return output
    .split("\n")
    .filter((line) => line !== "")
    .map((line) => {
      try {
        return JSON.parse(line) as Entry;
      } catch {
        throw new Error(`not a JSON line: ${line}`);
      }
    });
}

test("HARNESS_LOG_FORMAT=json: every line is an object with time, level and msg; start, a connection, a run's start and end, a refused handshake carry their fields", async (t) => {
  const dataDir = await newDataDir();
  const before = Date.now();
  const server = await startHarnessServer({ dataDir, env: { ...modelEnv(), HARNESS_TOKEN: TOKEN, HARNESS_LOG_FORMAT: "json", HARNESS_LOG_LEVEL: "debug" } });
  t.after(() => server.stop());

  fake().push({ text: "hello there" });
  const client = await MinimalClient.connect(server.url, { userId: "ann", sessionId: "s1", token: TOKEN });
  client.send({ type: "submit", prompt: "a-secret-prompt" });
  await client.waitForState((s) => s.status === "idle" && s.messages[1]?.status === "complete", 30_000, "the run to complete");
  client.close();
  await assert.rejects(MinimalClient.connect(server.url, { userId: "ann", sessionId: "s1", token: "not-the-token-at-all" }), /401/);
  await assert.rejects(MinimalClient.connect(server.url, { userId: "", sessionId: "s1", token: TOKEN }), /400/);
  await waitFor(() => server.output().includes("client left"), "the client's leaving in the log");
  assert.equal(await server.stop(), 0);

  const lines = entries(server.output());
  for (const entry of lines) {
    assert.match(entry.time, ISO_TIME, JSON.stringify(entry));
    assert.ok(Date.parse(entry.time) >= before - 1000 && Date.parse(entry.time) <= Date.now() + 1000, entry.time);
    assert.ok(["debug", "info", "warn", "error"].includes(entry.level), JSON.stringify(entry));
    assert.equal(typeof entry.msg, "string");
  }
  const find = (msg: string | RegExp) => {
    const found = lines.find((entry) => (typeof msg === "string" ? entry.msg === msg : msg.test(entry.msg)));
    assert.ok(found, `no line ${msg} in:\n${server.output()}`);
    return found;
  };
  assert.deepEqual(find(/^Harness listening on /), { time: lines[0].time, level: "info", msg: `Harness listening on ${server.url}`, url: server.url });
  assert.equal(lines[0].msg, `Harness listening on ${server.url}`, "the URL comes first, as in text");
  assert.equal(find(/^sessions work in /).level, "info");

  const connected = find("client connected");
  assert.equal(connected.level, "info");
  assert.equal(connected.user, "ann");
  assert.equal(connected.session, "s1");
  assert.equal(connected.address, "127.0.0.1");
  const started = find("run started");
  assert.equal(started.level, "info");
  assert.equal(started.user, "ann");
  assert.equal(started.session, "s1");
  assert.equal(typeof started.run, "string");
  const ended = find("run completed");
  assert.equal(ended.level, "info");
  assert.equal(ended.session, "s1");
  assert.equal(ended.status, "completed");
  assert.equal(ended.run, started.run, "the end names the run the start named");
  assert.ok(typeof ended.durationMs === "number" && ended.durationMs >= 0, JSON.stringify(ended));
  const left = find("client left");
  assert.equal(left.session, "s1");
  assert.equal(typeof left.closeCode, "number");

  const refused = find("refused a WebSocket: missing or wrong token");
  assert.equal(refused.level, "warn");
  assert.equal(refused.address, "127.0.0.1");
  assert.equal(refused.httpStatus, 401);
  const badQuery = find(/^refused a WebSocket: bad \/ws query/);
  assert.equal(badQuery.level, "debug", "a client's malformed request shows at debug level only");
  assert.equal(badQuery.httpStatus, 400);

  const stopping = find("terminated, shutting down");
  assert.equal(stopping.level, "info");
  assert.doesNotMatch(server.output(), new RegExp(TOKEN), "the token is never shown");
  assert.doesNotMatch(server.output(), /a-secret-prompt|hello there/, "neither the prompt nor the reply");
});

/** Starts `harness serve` (its standard output in a regular file when `toFile`, as under nohup,
 * else a pipe), waits until what it printed satisfies `started`, stops it, and answers what it
 * printed on each output. */
async function serve(env: Record<string, string>, started: (output: string) => boolean, toFile = false): Promise<{ stdout: string; stderr: string }> {
  const dataDir = await newDataDir();
  const file = join(dataDir, "serve.log");
  const fd = toFile ? openSync(file, "a") : undefined;
  const main = fileURLToPath(new URL("../packages/cli/bin/harness.mjs", import.meta.url));
  const child = spawn(process.execPath, [...SERVER_GC_FLAGS, main, "serve"], {
    env: { ...process.env, ...modelEnv(), PORT: "0", HARNESS_DATA_DIR: dataDir, HOME: join(dataDir, "home"), ...env },
    stdio: ["ignore", fd ?? "pipe", "pipe"],
  });
  if (fd !== undefined) closeSync(fd);
  let piped = "";
  let stderr = "";
  child.stdout?.setEncoding("utf8").on("data", (text: string) => (piped += text));
  child.stderr!.setEncoding("utf8").on("data", (text: string) => (stderr += text));
  const stdout = () => (toFile ? readFileSync(file, "utf8") : piped);
  const exited = new Promise((resolve) => child.once("exit", resolve));
  try {
    await waitFor(() => started(stdout() + stderr), "the server to start");
  } finally {
    child.kill("SIGTERM");
    await exited;
  }
  return { stdout: stdout(), stderr };
}

test("HARNESS_LOG_LEVEL=warn leaves the info lines out of the JSON log and keeps the warnings", async () => {
  // No key: its absence is warned of, at warn level; the URL and the rest are info.
  const { stdout, stderr } = await serve({ ANTHROPIC_API_KEY: "", HARNESS_LOG_FORMAT: "json", HARNESS_LOG_LEVEL: "warn" }, (output) => output.includes("ANTHROPIC_API_KEY"));
  assert.equal(stdout, "");
  assert.deepEqual(
    entries(stderr).map((entry) => [entry.level, entry.msg]),
    [["warn", "ANTHROPIC_API_KEY is not set; runs of Anthropic models will fail until it is"]],
  );
});

const STAMPED = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z /;

test("text lines start with their time with HARNESS_LOG_TIMESTAMPS=1, and on their own when the output is a file; otherwise they are as they were", async () => {
  const stamped = await startHarnessServer({ dataDir: await newDataDir(), env: { ...modelEnv(), HARNESS_LOG_TIMESTAMPS: "1" } });
  await waitFor(() => stamped.output().includes("sessions work in"), "the server to start");
  await stamped.stop();
  const [first, second, third] = stamped.output().split("\n");
  assert.match(first, new RegExp(`${STAMPED.source}Harness listening on ${stamped.url}$`));
  assert.match(second, new RegExp(`${STAMPED.source}web UI: open ${stamped.url}/ in a browser$`));
  assert.match(third, new RegExp(`${STAMPED.source}sessions work in their own empty directories under `));
  assert.match(stamped.output(), new RegExp(`\\n${STAMPED.source.slice(1)}harness: terminated, shutting down\\n`), "the command's own lines too");

  const piped = await startHarnessServer({ dataDir: await newDataDir(), env: modelEnv() });
  await waitFor(() => piped.output().includes("sessions work in"), "the server to start");
  await piped.stop();
  assert.equal(piped.output().split("\n")[0], `Harness listening on ${piped.url}`, "a pipe gets the lines as they were");

  const startedUp = (output: string) => output.includes("sessions work in");
  const filed = (await serve({}, startedUp, true)).stdout.split("\n");
  assert.match(filed[0], new RegExp(`${STAMPED.source}Harness listening on http://127\\.0\\.0\\.1:\\d+$`));
  const unstamped = (await serve({ HARNESS_LOG_TIMESTAMPS: "0" }, startedUp, true)).stdout.split("\n");
  assert.match(unstamped[0], /^Harness listening on http:\/\/127\.0\.0\.1:\d+$/, "0 turns them off");
});

test("bad log settings stop the server at start, naming the variable and the values it takes", async () => {
  for (const [name, value, allowed] of [
    ["HARNESS_LOG_FORMAT", "xml", "text or json"],
    ["HARNESS_LOG_LEVEL", "verbose", "debug, info, warn or error"],
    ["HARNESS_LOG_TIMESTAMPS", "yes", "1 or 0"],
  ] as const) {
    const started = await startHarnessServer({ dataDir: await newDataDir(), env: { ...modelEnv(), [name]: value } }).catch((error: Error) => error);
    if (!(started instanceof Error)) {
      await started.stop();
      assert.fail(`${name}=${value} started a server`);
    }
    assert.match(started.message, new RegExp(`exited with 1 before listening:\\nharness: cannot start the server: ${name} must be ${allowed}, got "${value}"\\n$`));
  }
});

test("a server whose log's reader goes away (a closed pipe) goes on serving, and stops cleanly", async () => {
  const dataDir = await newDataDir();
  const main = fileURLToPath(new URL("../packages/cli/bin/harness.mjs", import.meta.url));
  const child = spawn(process.execPath, [...SERVER_GC_FLAGS, main, "serve"], {
    env: { ...process.env, ...modelEnv(), PORT: "0", HARNESS_DATA_DIR: dataDir, HOME: join(dataDir, "home") },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  child.stdout.setEncoding("utf8").on("data", (text: string) => (stdout += text));
  child.stderr.setEncoding("utf8").on("data", (text: string) => (stderr += text));
  const exited = new Promise<number | null>((resolve) => child.once("exit", resolve));
  try {
    await waitFor(() => /Harness listening on (\S+)\n/.test(stdout), "the server's URL");
    const url = /Harness listening on (\S+)\n/.exec(stdout)![1];
    // As `harness serve | head -1` leaves it: the next line written meets a pipe nobody reads.
    child.stdout.destroy();
    for (let i = 0; i < 5; i++) assert.equal((await fetch(`${url}/sessions?userId=ann`)).status, 200, stderr);
    assert.equal((await fetch(`${url}/healthz`)).status, 200);
  } finally {
    child.kill("SIGTERM");
  }
  assert.equal(await exited, 0, stderr);
  assert.doesNotMatch(stderr, /EPIPE/);
});
