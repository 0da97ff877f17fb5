// A shared server's sessions use the MCP sign-ins of the user running `harness serve` (the runner
// reads them on the same machine), and their commands are not shown the file that holds them.
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { MinimalClient, startFakeAnthropic, startFakeOAuthServer, startHarnessServer, startMcpTestHttpServer } from "@harness/test-utils";
import { mcpLogin, mcpOAuthFile } from "../packages/agent/src/mcp/oauth.ts";

test("under harness serve, a run uses the server user's MCP sign-in, and its Bash is told the token file is hidden", async (t) => {
  const oauth = await startFakeOAuthServer();
  const mcp = await startMcpTestHttpServer({ oauth });
  t.after(async () => {
    await mcp.close();
    await oauth.close();
  });
  const dataDir = await mkdtemp(join(tmpdir(), "harness-mcp-oauth-"));
  t.after(() => rm(dataDir, { recursive: true, force: true }));
  const home = join(dataDir, "home");
  await mkdir(join(home, ".claude"), { recursive: true });
  await writeFile(join(home, ".claude.json"), JSON.stringify({ mcpServers: { notes: { type: "http", url: mcp.url } } }));
  const file = mcpOAuthFile(home);
  await mcpLogin({ name: "notes", scope: "user", file: join(home, ".claude.json"), type: "http", url: mcp.url, headers: {} }, {
    file,
    env: { BROWSER: "none" },
    onAuthorizationUrl: (url) => void fetch(url).then((res) => res.text()),
  });

  const fake = await startFakeAnthropic({
    replies: [{ toolUses: [{ name: "mcp__notes__echo", input: { text: "served notes" } }, { name: "Bash", input: { command: "env", description: "look" } }] }, { text: "done" }],
  });
  t.after(() => fake.close());
  const server = await startHarnessServer({ dataDir, env: { ANTHROPIC_API_KEY: "k", ANTHROPIC_BASE_URL: fake.url } });
  t.after(() => server.stop());
  const client = await MinimalClient.connect(server.url, { userId: "u", sessionId: "one" });
  t.after(() => client.close());
  await client.waitForState(() => true, 10_000, "the first snapshot");
  client.send({ type: "configure", config: { permissionMode: "fullAuto" } });
  client.send({ type: "submit", prompt: "use the notes" });
  await client.waitForState((s) => s.status !== "running" && s.messages[1] !== undefined && s.messages[1].status !== "running", 30_000, "the run to end");
  const calls = client.state!.messages[1].toolCalls ?? [];
  const echo = calls.find((call) => call.name === "mcp__notes__echo");
  assert.equal(echo?.status, "complete", JSON.stringify(client.state));
  assert.match(echo?.output ?? "", /served notes/);
  const hidden = (calls.find((call) => call.name === "Bash")?.output ?? "").split("\n").find((line) => line.startsWith("HARNESS_SANDBOX_HIDE="));
  assert.ok(hidden?.split("=")[1].split(":").includes(file), hidden);
});
