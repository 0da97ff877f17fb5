// `harness doctor` end to end: the real command against the fake model servers, in a home and
// project of its own, with the server's data directory and port its own too.
import assert from "node:assert/strict";
import { mkdirSync, readdirSync, symlinkSync, writeFileSync } from "node:fs";
import { createServer as createHttpServer } from "node:http";
import { DatabaseSync } from "node:sqlite";
import { dirname, join } from "node:path";
import { test } from "node:test";
import { FAKE_AWS_KEYS, freePort, startFakeAnthropic, startFakeOpenAI } from "@harness/test-utils";
import { bedrockRunEnv, harness, tempDir } from "../test-support.ts";

const KEY = "sk-ant-doctor-secret-key-1234567890";

/** A home and a project of their own, and the environment that puts doctor in them. */
async function place(t: test.TestContext) {
  const dir = tempDir(t);
  const home = join(dir, "home");
  const project = join(dir, "project");
  mkdirSync(join(home, ".claude"), { recursive: true });
  mkdirSync(join(project, ".claude"), { recursive: true });
  const env = { HOME: home, HARNESS_DATA_DIR: join(dir, "data"), PORT: String(await freePort()), HARNESS_MODEL: "", ANTHROPIC_MODEL: "", HARNESS_TOKEN: "", HARNESS_TOKENS_FILE: "" };
  return { dir, home, project, env };
}

async function doctor(project: string, env: Record<string, string>, ...args: string[]) {
  return harness(["doctor", "--cwd", project, ...args], env).result;
}

/** The lines of the checks named `check`, their marks included. */
function lines(stdout: string, check: string): string[] {
  return stdout.split("\n").filter((line) => line.startsWith(`✓ ${check}:`) || line.startsWith(`! ${check}:`) || line.startsWith(`✗ ${check}:`));
}

test("a good setup on the Anthropic API: every check ✓, the model and where it is served named, the key never shown", async (t) => {
  const fake = await startFakeAnthropic({ replies: [{ text: "OK" }] });
  t.after(() => fake.close());
  const { project, env } = await place(t);
  const { code, stdout, stderr } = await doctor(project, { ...env, ANTHROPIC_API_KEY: KEY, ANTHROPIC_BASE_URL: fake.url });
  assert.equal(code, 0, stdout + stderr);
  assert.doesNotMatch(stdout, /^[!✗]/m);
  assert.match(stdout, new RegExp(`^✓ model: claude-sonnet-4-6, served by the Anthropic API at ${fake.url}`, "m"));
  assert.match(stdout, /^✓ credentials: ANTHROPIC_API_KEY is set$/m);
  assert.match(stdout, /^✓ endpoint: answers, and takes the credentials$/m);
  assert.match(stdout, /^✓ node: v\d+/m);
  assert.equal(fake.requests.length, 1, "one request to the model");
  assert.equal(fake.requests[0].body.max_tokens, 1);
  assert.ok(!stdout.includes(KEY) && !stderr.includes(KEY));
});

test("a key the Anthropic API refuses: ✗ endpoint with the service's 401 and the variable to fix, exit 1", async (t) => {
  const fake = await startFakeAnthropic({ replies: [{ kind: "http-error", status: 401 }] });
  t.after(() => fake.close());
  const { project, env } = await place(t);
  const { code, stdout } = await doctor(project, { ...env, ANTHROPIC_API_KEY: KEY, ANTHROPIC_BASE_URL: fake.url });
  assert.equal(code, 1, stdout);
  const [endpoint] = lines(stdout, "endpoint");
  assert.match(endpoint, /^✗ endpoint: Anthropic API error 401 \(authentication_error\).*the key was refused: check ANTHROPIC_API_KEY/);
  assert.match(stdout, /✗ endpoint: .*\n {4}→ set ANTHROPIC_API_KEY \(or the apiKeyHelper\) to ones this endpoint takes\n/);
  assert.ok(!stdout.includes(KEY));
});

test("no Anthropic key at all: ✗ credentials saying which variable to set, and no request made", async (t) => {
  const fake = await startFakeAnthropic({ replies: [{ text: "OK" }] });
  t.after(() => fake.close());
  const { project, env } = await place(t);
  const { code, stdout } = await doctor(project, { ...env, ANTHROPIC_API_KEY: "", ANTHROPIC_AUTH_TOKEN: "", ANTHROPIC_BASE_URL: fake.url });
  assert.equal(code, 1, stdout);
  assert.match(lines(stdout, "credentials")[0], /^✗ credentials: ANTHROPIC_API_KEY is not set/);
  assert.equal(fake.requests.length, 0);
});

test("an OpenAI-compatible model: routed by HARNESS_MODEL; a good key ✓, a refused one ✗ naming OPENAI_API_KEY", async (t) => {
  const { project, env } = await place(t);
  const good = await startFakeOpenAI({ replies: [{ text: "OK" }] });
  t.after(() => good.close());
  const ok = await doctor(project, { ...env, HARNESS_MODEL: "openai/gpt-test", OPENAI_BASE_URL: good.url, OPENAI_API_KEY: KEY, ANTHROPIC_API_KEY: "" });
  assert.equal(ok.code, 0, ok.stdout + ok.stderr);
  assert.match(ok.stdout, new RegExp(`^✓ model: openai/gpt-test, served by the OpenAI-compatible API at ${good.url}`, "m"));
  assert.match(ok.stdout, /^✓ endpoint: answers/m);

  const refusing = await startFakeOpenAI({ replies: [{ kind: "http-error", status: 401 }] });
  t.after(() => refusing.close());
  const bad = await doctor(project, { ...env, HARNESS_MODEL: "openai/gpt-test", OPENAI_BASE_URL: refusing.url, OPENAI_API_KEY: KEY, ANTHROPIC_API_KEY: "" });
  assert.equal(bad.code, 1);
  assert.match(lines(bad.stdout, "endpoint")[0], /^✗ endpoint: OpenAI API error 401.*check OPENAI_API_KEY/);
  assert.ok(!bad.stdout.includes(KEY));
});

test("Claude on Bedrock: its AWS keys take the request ✓; without any, ✗ naming the AWS credentials, not an Anthropic key", async (t) => {
  const fake = await startFakeAnthropic({ replies: [{ text: "OK" }] });
  t.after(() => fake.close());
  const { project, env } = await place(t);
  const bedrock = { ...env, ...bedrockRunEnv(fake.url), ANTHROPIC_API_KEY: "" };
  const good = await doctor(project, { ...bedrock, AWS_ACCESS_KEY_ID: FAKE_AWS_KEYS.accessKeyId, AWS_SECRET_ACCESS_KEY: FAKE_AWS_KEYS.secretAccessKey });
  assert.equal(good.code, 0, good.stdout + good.stderr);
  assert.match(good.stdout, /^✓ model: .*, served by Amazon Bedrock/m);
  assert.match(good.stdout, /^✓ endpoint: answers/m);
  assert.ok(!good.stdout.includes(FAKE_AWS_KEYS.secretAccessKey));

  const none = await doctor(project, { ...bedrock, AWS_ACCESS_KEY_ID: "", AWS_SECRET_ACCESS_KEY: "", AWS_PROFILE: "", AWS_BEARER_TOKEN_BEDROCK: "" });
  assert.equal(none.code, 1);
  assert.match(lines(none.stdout, "endpoint")[0], /^✗ endpoint: no AWS credentials for Amazon Bedrock/);
  assert.match(none.stdout, /→ set the AWS credentials \(as the failure says\) to ones this endpoint takes/);
});

test("a settings file that is not JSON and one with a bad key: each named with its file (and key), with a remedy", async (t) => {
  const fake = await startFakeAnthropic({ replies: [{ text: "OK" }] });
  t.after(() => fake.close());
  const { project, home, env } = await place(t);
  writeFileSync(join(project, ".claude", "settings.json"), "{ not json");
  writeFileSync(join(home, ".claude", "settings.json"), JSON.stringify({ permissions: { allow: 5 } }));
  const { stdout } = await doctor(project, { ...env, ANTHROPIC_API_KEY: KEY, ANTHROPIC_BASE_URL: fake.url });
  const settings = lines(stdout, "settings");
  const broken = join(project, ".claude", "settings.json");
  assert.ok(settings.some((line) => line.startsWith(`! settings: ${broken}: `)), stdout);
  assert.ok(settings.some((line) => line.startsWith(`! settings: ${join(home, ".claude", "settings.json")} (permissions.allow): `)), stdout);
  assert.match(stdout, new RegExp(`→ mend ${broken.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}: a run skips all of it`));
});

test("an MCP server that fails to start: ✗ with what it said, exit 1; hooks counted by event", async (t) => {
  const fake = await startFakeAnthropic({ replies: [{ text: "OK" }] });
  t.after(() => fake.close());
  const { project, home, env } = await place(t);
  const mcpServers = { broken: { command: process.execPath, args: ["-e", "process.stderr.write('no config here'); process.exit(3)"] } };
  writeFileSync(join(home, ".claude.json"), JSON.stringify({ mcpServers }));
  const hook = { hooks: [{ type: "command", command: "true" }] };
  writeFileSync(join(home, ".claude", "settings.json"), JSON.stringify({ hooks: { PreToolUse: [hook, hook], Stop: [hook] } }));
  const { code, stdout } = await doctor(project, { ...env, ANTHROPIC_API_KEY: KEY, ANTHROPIC_BASE_URL: fake.url });
  assert.equal(code, 1, stdout);
  const [server] = lines(stdout, "mcp broken");
  assert.match(server, /^✗ mcp broken: .* \(user\) - failed: /);
  assert.match(stdout, /no config here/);
  assert.match(stdout, /^✓ hooks: PreToolUse 2, Stop 1$/m);
});

test("the sandbox turned on where bubblewrap is not on PATH: ✗ sandbox naming what to install", async (t) => {
  const fake = await startFakeAnthropic({ replies: [{ text: "OK" }] });
  t.after(() => fake.close());
  const { dir, project, home, env } = await place(t);
  // Every program of the system but bwrap, and this Node (which the harness script looks for first).
  const bin = join(dir, "bin");
  mkdirSync(bin);
  for (const system of ["/usr/bin", "/bin"]) {
    for (const name of readdirSync(system)) {
      if (name === "bwrap") continue;
      try {
        symlinkSync(join(system, name), join(bin, name));
      } catch {
        // Already linked from the other directory.
      }
    }
  }
  writeFileSync(join(home, ".claude", "settings.json"), JSON.stringify({ sandbox: { enabled: true } }));
  const { code, stdout } = await doctor(project, { ...env, PATH: `${dirname(process.execPath)}:${bin}`, ANTHROPIC_API_KEY: KEY, ANTHROPIC_BASE_URL: fake.url });
  assert.equal(code, 1, stdout);
  assert.match(lines(stdout, "sandbox")[0], /^✗ sandbox: on, but bwrap is not installed/);
  assert.match(stdout, /→ install what is missing, or set sandbox.enabled to false in the settings/);
});

test("a data directory that is a file: ✗ naming it, with the variable that moves it", async (t) => {
  const fake = await startFakeAnthropic({ replies: [{ text: "OK" }] });
  t.after(() => fake.close());
  const { dir, project, env } = await place(t);
  const file = join(dir, "data");
  writeFileSync(file, "");
  const { code, stdout } = await doctor(project, { ...env, HARNESS_DATA_DIR: file, ANTHROPIC_API_KEY: KEY, ANTHROPIC_BASE_URL: fake.url });
  assert.equal(code, 1, stdout);
  assert.equal(lines(stdout, "data directory")[0], `✗ data directory: ${file} is a file, not a directory`);
  assert.match(stdout, /→ set HARNESS_DATA_DIR \(or harness serve --data-dir\) to a directory you can write/);
});

test("a HARNESS_BACKEND that names no backend: ✗ backend saying which there are", async (t) => {
  const fake = await startFakeAnthropic({ replies: [{ text: "OK" }] });
  t.after(() => fake.close());
  const { project, env } = await place(t);
  const { code, stdout } = await doctor(project, { ...env, HARNESS_BACKEND: "claude-cod", ANTHROPIC_API_KEY: KEY, ANTHROPIC_BASE_URL: fake.url });
  assert.equal(code, 1, stdout);
  assert.equal(lines(stdout, "backend")[0], `✗ backend: HARNESS_BACKEND must be one of builtin, claude-code, got "claude-cod"`);
});

test("a proxy variable that cannot be used: ✗ network naming it, and no request made", async (t) => {
  const fake = await startFakeAnthropic({ replies: [{ text: "OK" }] });
  t.after(() => fake.close());
  const { project, env } = await place(t);
  const { code, stdout } = await doctor(project, { ...env, HTTP_PROXY: "socks5://127.0.0.1:1080", ANTHROPIC_API_KEY: KEY, ANTHROPIC_BASE_URL: fake.url });
  assert.equal(code, 1, stdout);
  assert.match(lines(stdout, "network")[0], /^✗ network: HTTP_PROXY is not a usable proxy URL/);
  assert.equal(fake.requests.length, 0);
});

test("--settings that cannot be read: ✗ settings naming the flag; memory files counted", async (t) => {
  const fake = await startFakeAnthropic({ replies: [{ text: "OK" }] });
  t.after(() => fake.close());
  const { project, env } = await place(t);
  writeFileSync(join(project, "CLAUDE.md"), "Use tabs.\n");
  const { code, stdout } = await doctor(project, { ...env, ANTHROPIC_API_KEY: KEY, ANTHROPIC_BASE_URL: fake.url }, "--settings", "{oops");
  assert.equal(code, 1, stdout);
  assert.match(lines(stdout, "settings")[0], /^✗ settings: --settings/);
  assert.match(stdout, /^✓ memory: 1 file, 10 bytes$/m);
});

test("the port: held by a Harness server is said with !, held by another program ✗; a database of a newer format ✗", async (t) => {
  const fake = await startFakeAnthropic({ replies: [{ text: "OK" }, { text: "OK" }] });
  t.after(() => fake.close());
  const { dir, project, env } = await place(t);
  const data = join(dir, "data");
  mkdirSync(data);
  const db = new DatabaseSync(join(data, "harness.db"));
  db.exec("PRAGMA user_version = 99");
  db.close();
  let harnessLike = true;
  const server = createHttpServer((req, res) => {
    if (harnessLike && req.url === "/healthz") res.writeHead(200, { "content-type": "application/json" }).end('{"ok":true}');
    else res.writeHead(404).end("nothing here");
  });
  await new Promise<void>((done) => server.listen(Number(env.PORT), "127.0.0.1", done));
  t.after(() => server.close());
  const base = { ...env, HARNESS_DATA_DIR: data, ANTHROPIC_API_KEY: KEY, ANTHROPIC_BASE_URL: fake.url };
  const first = await doctor(project, base);
  assert.equal(lines(first.stdout, "port")[0], `! port: 127.0.0.1:${env.PORT} is taken by a Harness server already running`);
  assert.match(lines(first.stdout, "data directory")[0], /^✗ data directory: .*harness\.db is of format 99, written by a newer Harness/);
  harnessLike = false;
  const second = await doctor(project, base);
  assert.equal(lines(second.stdout, "port")[0], `✗ port: 127.0.0.1:${env.PORT} is taken by another program`);
});

test("--json: the same checks as an array of {check, status, detail, remedy}", async (t) => {
  const fake = await startFakeAnthropic({ replies: [{ kind: "http-error", status: 401 }] });
  t.after(() => fake.close());
  const { project, env } = await place(t);
  const { code, stdout } = await doctor(project, { ...env, ANTHROPIC_API_KEY: KEY, ANTHROPIC_BASE_URL: fake.url }, "--json");
  assert.equal(code, 1);
  const checks = JSON.parse(stdout) as Record<string, unknown>[];
  assert.ok(Array.isArray(checks) && checks.length > 5);
  for (const check of checks) {
    assert.deepEqual(Object.keys(check), ["check", "status", "detail", "remedy"]);
    assert.ok(["ok", "warn", "fail"].includes(check.status as string));
    assert.equal(typeof check.detail, "string");
    assert.equal(check.remedy === null, check.status === "ok", JSON.stringify(check));
  }
  assert.deepEqual(checks.slice(0, 2).map((c) => c.check), ["node", "harness"]);
  const endpoint = checks.find((c) => c.check === "endpoint");
  assert.equal(endpoint?.status, "fail");
  assert.match(String(endpoint?.remedy), /ANTHROPIC_API_KEY/);
});

test("usage: an unknown option is refused with the way to the help", async () => {
  const { code, stderr } = await harness(["doctor", "--bogus"], {}).result;
  assert.equal(code, 2);
  assert.equal(stderr, `harness: unknown option "--bogus" (try "harness doctor --help")\n`);
});
