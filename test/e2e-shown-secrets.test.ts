// What a session's runs show is stored with the conversation and sent to each of the user's
// clients: the notice of a failed MCP server (its stderr) and of a failed hook (its command and
// stderr) hide their secrets there, in the state a client receives and in the SQLite file's bytes.
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { MinimalClient, SECRET_PROCESS_ENV, SECRET_SETTINGS_ENV, secretMcpServers, startHarnessServer, storedRunnerPid } from "@harness/test-utils";
import { fakeModelForFile } from "./fake-model-support.ts";

const { fake, newDataDir, modelEnv } = fakeModelForFile("harness-shown-secrets-");

/** A command hook with literal secrets in its command, which writes the settings' token on stderr
 * and exits 1. */
const FAILING_HOOK = `printf 'refused %s\\n' "$MY_SERVICE_TOKEN" >&2; exit 1 # --token=hooktoken-s3cret-10 -H "Authorization: Bearer hookbearer-s3cret-11"`;

/** A data directory whose user's MCP servers and settings (env, a failing UserPromptSubmit hook)
 * hold secrets (secretMcpServers). */
async function withSecrets(): Promise<string> {
  const dataDir = await newDataDir();
  const home = join(dataDir, "home");
  mkdirSync(join(home, ".claude"), { recursive: true });
  writeFileSync(join(home, ".claude.json"), JSON.stringify({ mcpServers: secretMcpServers(home) }));
  const hooks = { UserPromptSubmit: [{ hooks: [{ type: "command", command: FAILING_HOOK }] }] };
  writeFileSync(join(home, ".claude", "settings.json"), JSON.stringify({ env: SECRET_SETTINGS_ENV, hooks }));
  return dataDir;
}

test("a session's notices of a failed MCP server and a failed hook reach its client and its SQLite file without their secrets, naming the server, the flags and the exit code", async (t) => {
  fake().push({ text: "hi" });
  const dataDir = await withSecrets();
  const server = await startHarnessServer({ dataDir, env: { ...modelEnv(), ...SECRET_PROCESS_ENV } });
  t.after(() => server.stop());
  const client = await MinimalClient.connect(server.url, { userId: "ann", sessionId: "shown" });
  let state: string;
  try {
    client.send({ type: "submit", prompt: "hello" });
    await client.waitForState((s) => s.status === "idle" && s.messages[1]?.status === "complete", 30_000, "the run's end");
    state = JSON.stringify(client.state);
  } finally {
    await client.close();
  }
  const notices = ((JSON.parse(state) as { notices?: { message: string }[] }).notices ?? []).map((n) => n.message).join("\n");
  assert.doesNotMatch(state, /s3cret/, "no secret in the client's state");
  assert.match(notices, /MCP server leaky failed: its process exited with code 1/);
  assert.match(notices, /args: --api-key \*\*\* --token=\*\*\* -H Authorization: Bearer \*\*\* --header X-Api-Key:\*\*\* --verbose/);
  assert.match(notices, /credential: \*\*\*/);
  assert.match(notices, /settings token: \*\*\*/);
  assert.match(notices, /UserPromptSubmit hook `.*--token=\*\*\* -H "Authorization: Bearer \*\*\*"` failed with exit code 1: refused \*\*\*/);
  await server.stop();
  const stored = readdirSync(dataDir).filter((name) => name.startsWith("harness.db"));
  assert.ok(stored.includes("harness.db"), `the SQLite file among ${stored.join(", ")}`);
  for (const name of stored) assert.doesNotMatch(readFileSync(join(dataDir, name)).toString("latin1"), /s3cret/, `no secret in ${name}`);
});

/** The files of `dir` and below whose names match `name`. */
function filesUnder(dir: string, name: RegExp): string[] {
  return readdirSync(dir, { recursive: true, encoding: "utf8" }).filter((file) => name.test(file)).map((file) => join(dir, file));
}

test("the message of a runner that died mid-run quotes its last output without the secrets in it, in the client's state and the SQLite file", async (t) => {
  fake().push({ text: ["half"], hold: new Promise(() => {}) });
  const dataDir = await newDataDir();
  const server = await startHarnessServer({ dataDir, env: { ...modelEnv(), ...SECRET_PROCESS_ENV } });
  t.after(() => server.stop());
  const ids = { userId: "ann", sessionId: "dies" };
  const client = await MinimalClient.connect(server.url, ids);
  let state: string;
  try {
    client.send({ type: "submit", prompt: "hello" });
    await client.waitForState((s) => s.messages[1]?.content === "half", 30_000, "the run to stream");
    const pid = storedRunnerPid(dataDir, ids);
    assert.ok(pid !== undefined, "a runner serves the run");
    const [log] = filesUnder(dataDir, /runner-\d+\.log$/);
    assert.ok(log, "the runner's log file");
    // What a dying runner might print last: a secret of its environment by value, and a flag's.
    writeFileSync(log, `Error: the service refused ${SECRET_PROCESS_ENV.DEPLOY_PASSWORD} (--api-key flagkey-s3cret-12)\n`, { flag: "a" });
    process.kill(pid, "SIGKILL");
    await client.waitForState((s) => JSON.stringify(s).includes("its last output"), 30_000, "the runner's death to be told");
    state = JSON.stringify(client.state);
  } finally {
    await client.close();
  }
  assert.doesNotMatch(state, /s3cret/, "no secret in the client's state");
  assert.match(state, /its last output: Error: the service refused \*\*\* \(--api-key \*\*\*\)/);
  await server.stop();
  const stored = readdirSync(dataDir).filter((name) => name.startsWith("harness.db"));
  for (const name of stored) assert.doesNotMatch(readFileSync(join(dataDir, name)).toString("latin1"), /s3cret/, `no secret in ${name}`);
});
