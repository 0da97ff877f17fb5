import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { claudeCodeSecrets } from "./secrets.ts";

test("a Claude Code run knows the secrets of its environments, of the settings files it reads and of its MCP servers' configuration", async (t) => {
  const root = mkdtempSync(join(tmpdir(), "harness-cc-secrets-"));
  t.after(() => rmSync(root, { recursive: true, force: true }));
  const [configDir, home, cwd] = ["claude", "claude-home", "workspace"].map((dir) => join(root, dir));
  mkdirSync(configDir);
  mkdirSync(join(cwd, ".claude"), { recursive: true });
  writeFileSync(join(configDir, "settings.json"), JSON.stringify({ env: { USER_TOKEN: "usertoken-s3cret-1", NODE_ENV: "production" } }));
  writeFileSync(join(cwd, ".claude", "settings.json"), JSON.stringify({ env: { PROJECT_API_KEY: "projectkey-s3cret-2" }, mcpServers: { fromSettings: { command: "x", env: { S_TOKEN: "settingsmcp-s3cret-3" } } } }));
  writeFileSync(join(cwd, ".claude", "settings.local.json"), JSON.stringify({ env: { LOCAL_SECRET: "localsecret-s3cret-4" } }));
  writeFileSync(join(cwd, ".mcp.json"), JSON.stringify({ mcpServers: { docs: { command: "docs", env: { DOCS_CREDENTIAL: "docs0credential0s3cret5", DEBUG: "1" } }, web: { type: "http", url: "https://example.com/mcp", headers: { Authorization: "Bearer webbearer-s3cret-6" } } } }));
  writeFileSync(join(configDir, ".claude.json"), JSON.stringify({ mcpServers: { mine: { command: "mine", env: { MINE_TOKEN: "${USER_TOKEN}" } } }, projects: { [cwd]: { mcpServers: { here: { command: "here", env: { HERE_PASSWORD: "herepass-s3cret-7" } } } } } }));
  // Not read: ~/.claude of Claude Code's home is not its configuration directory.
  mkdirSync(join(home, ".claude"), { recursive: true });
  writeFileSync(join(home, ".claude", "settings.json"), JSON.stringify({ env: { OTHER_TOKEN: "notread-value-8" } }));

  const env = { PATH: "/bin", ANTHROPIC_API_KEY: "apikey-s3cret-9" };
  const runnerEnv = { DEPLOY_PASSWORD: "deploypass-s3cret-10", HOME: "/root" };
  const secrets = await claudeCodeSecrets({ env, runnerEnv, settingSources: ["user", "project", "local"], configDir, home, cwd });
  for (const value of ["apikey-s3cret-9", "deploypass-s3cret-10", "usertoken-s3cret-1", "projectkey-s3cret-2", "localsecret-s3cret-4", "settingsmcp-s3cret-3", "docs0credential0s3cret5", "Bearer webbearer-s3cret-6", "webbearer-s3cret-6", "herepass-s3cret-7"]) {
    assert.ok(secrets.includes(value), `${value} among ${secrets.join(", ")}`);
  }
  for (const value of ["production", "1", "/root", "/bin", "notread-value-8"]) assert.ok(!secrets.includes(value), `${value} is not a secret`);

  const projectOnly = await claudeCodeSecrets({ env: {}, runnerEnv: {}, settingSources: ["project"], configDir, home, cwd });
  assert.ok(projectOnly.includes("projectkey-s3cret-2"));
  assert.ok(!projectOnly.includes("usertoken-s3cret-1") && !projectOnly.includes("localsecret-s3cret-4"), "the settings files Claude Code does not read add none");
});

test("a Claude Code run knows the managed settings' env and the header values of http hooks, whichever settings files it reads", async (t) => {
  const root = mkdtempSync(join(tmpdir(), "harness-cc-secrets-"));
  t.after(() => rmSync(root, { recursive: true, force: true }));
  const [configDir, home, cwd] = ["claude", "claude-home", "workspace"].map((dir) => join(root, dir));
  mkdirSync(join(cwd, ".claude"), { recursive: true });
  const managedSettingsPath = join(root, "etc", "managed-settings.json");
  mkdirSync(join(root, "etc"));
  const httpHook = (headers: Record<string, string>) => ({ hooks: { PreToolUse: [{ hooks: [{ type: "http", url: "https://hooks.example/h", headers }] }] } });
  const managed = { env: { POLICY_TOKEN: "policytoken-s3cret-1", LOG_LEVEL: "debug" }, ...httpHook({ "X-Api-Key": "managedhook-s3cret-2" }) };
  writeFileSync(managedSettingsPath, JSON.stringify(managed));
  writeFileSync(join(cwd, ".claude", "settings.json"), JSON.stringify(httpHook({ Authorization: "Bearer projecthook-s3cret-3", "Content-Type": "application/json" })));

  const secrets = await claudeCodeSecrets({ env: {}, runnerEnv: {}, settingSources: ["project"], configDir, home, cwd, managedSettingsPath });
  for (const value of ["policytoken-s3cret-1", "managedhook-s3cret-2", "Bearer projecthook-s3cret-3", "projecthook-s3cret-3"]) {
    assert.ok(secrets.includes(value), `${value} among ${secrets.join(", ")}`);
  }
  for (const value of ["debug", "application/json"]) assert.ok(!secrets.includes(value), `${value} is not a secret`);

  const none = await claudeCodeSecrets({ env: {}, runnerEnv: {}, settingSources: [], configDir, home, cwd, managedSettingsPath });
  assert.ok(none.includes("policytoken-s3cret-1"), "the managed settings are read whatever the sources");
  assert.ok(!none.includes("projecthook-s3cret-3"));
});
