// The one rule of what a log hides: secrets known by value, and secrets in a shape that says so.
import { test } from "node:test";
import assert from "node:assert/strict";
import { configuredSecrets, isSecretName, secretHiding, secretShapesHidden, secretValuesOf } from "./hidden-secrets.ts";

test("a flag's value that is a key, token, secret or password is hidden, its name kept", () => {
  assert.equal(secretShapesHidden("node server.js --api-key sk-live-0123 --port 3000"), "node server.js --api-key *** --port 3000");
  assert.equal(secretShapesHidden("mcp-github --token=ghp_abcdef --verbose"), "mcp-github --token=*** --verbose");
  assert.equal(secretShapesHidden("db --password hunter2 --client-secret=\"s3cr3t value\""), 'db --password *** --client-secret="***"');
  assert.equal(secretShapesHidden(JSON.stringify("tool --access-token 'abc123'")), JSON.stringify("tool --access-token '***'"));
  assert.equal(secretShapesHidden("apiKeyHelper (get-key --token=abc123) failed; [--password=pw9, next]"), "apiKeyHelper (get-key --token=***) failed; [--password=***, next]");
});

test("a header's secret is hidden, the header's name and the scheme kept", () => {
  assert.equal(secretShapesHidden('curl -H "Authorization: Bearer tok-12345" https://x'), 'curl -H "Authorization: Bearer ***" https://x');
  assert.equal(secretShapesHidden("--header X-Api-Key:abc123def"), "--header X-Api-Key:***");
  assert.equal(secretShapesHidden("-H 'Private-Token: glpat-xyz'"), "-H 'Private-Token: ***'");
  assert.equal(secretShapesHidden(JSON.stringify('curl -H "Authorization: Token t0k3n" x')), JSON.stringify('curl -H "Authorization: Token ***" x'));
  assert.equal(secretShapesHidden("sent Bearer eyJhbGciOi.payload.sig"), "sent Bearer ***");
  const basic = Buffer.from("ann:hunter2").toString("base64");
  assert.equal(secretShapesHidden(`Authorization: Basic ${basic}`), "Authorization: Basic ***");
  assert.equal(secretShapesHidden(`proxy sends Basic ${basic}`), "proxy sends Basic ***");
  assert.equal(secretShapesHidden("curl -u ann:hunter2 https://x && curl --user='bob:pw 1' y -u carol"), "curl -u *** https://x && curl --user='***' y -u carol");
});

test("a secret assigned to a variable named as one is hidden in a command line", () => {
  assert.equal(secretShapesHidden("GITHUB_TOKEN=ghp_123456 gh pr list"), "GITHUB_TOKEN=*** gh pr list");
  assert.equal(secretShapesHidden("docker run -e GITHUB_PERSONAL_ACCESS_TOKEN=ghp_x1 -e GH_HOST image"), "docker run -e GITHUB_PERSONAL_ACCESS_TOKEN=*** -e GH_HOST image");
  assert.equal(secretShapesHidden("DEBUG=1 LANG=C.UTF-8 make"), "DEBUG=1 LANG=C.UTF-8 make");
});

test("what the user debugs with stays: a variable's name, a path, a flag without a value, plain words", () => {
  for (const text of [
    'curl -H "Authorization: Bearer $API_TOKEN" https://api.example.com',
    "curl -H 'Authorization: Bearer ${TOKEN}'",
    "server --api-key $KEY --token=${TOKEN} --secret \"$SECRET\"",
    "ssh-agent --private-key ~/.ssh/id_ed25519 --ssh-key /etc/keys/deploy.pem --tls-key ./key.pem",
    "tool --no-api-key --verbose",
    "tool --api-key",
    "tool --monkey business --max-token 100 --keyboard us",
    "docker run -i --rm -u 1000:1000 ghcr.io/github/github-mcp-server",
    "the bearer of bad news, basic usage, Basic setup",
    "server github starting: npx -y @modelcontextprotocol/server-github",
  ]) {
    assert.equal(secretShapesHidden(text), text);
  }
});

test("secret names of the environment, and the values of a server's env and headers", () => {
  for (const name of ["OPENAI_API_KEY", "GITHUB_TOKEN", "ANTHROPIC_AUTH_TOKEN", "AWS_SECRET_ACCESS_KEY", "CLIENT_SECRET", "DB_PASSWORD", "PGPASSWORD", "API_KEY", "STRIPE_KEY", "REDIS_PASS", "APIKEY"]) {
    assert.ok(isSecretName(name), name);
  }
  for (const name of ["PATH", "HOME", "MAX_TOKENS", "CLAUDE_CODE_MAX_OUTPUT_TOKENS", "TOKEN_FILE", "KEYBOARD", "AWS_ACCESS_KEY_ID", "PASSENGER_COUNT", "MONKEY"]) assert.ok(!isSecretName(name), name);
  assert.deepEqual(secretValuesOf({ PATH: "/usr/bin", GITHUB_TOKEN: "ghp_x", HOME: undefined }), ["ghp_x"]);
  const headers = { Authorization: "Bearer abc-def-123", "X-Region": "eu", "Content-Type": "application/json", "X-Client": "k9f8a7s6d5f4g3h2j1" };
  assert.deepEqual(configuredSecrets(headers, "headers"), ["Bearer abc-def-123", "abc-def-123", "k9f8a7s6d5f4g3h2j1"]);
  const env = {
    TOKEN: "abc def",
    CONFIG: "/home/ann/mcp.json",
    BASE: "https://api.example.com/v1",
    SECRET_PATH_TOKEN: "./not-a-path",
    NODE_ENV: "production",
    SERVICE_CREDENTIAL: "envcred-s3cret-7x",
    BUILD: "2026-11-28T10:00:00Z-build",
  };
  assert.deepEqual(configuredSecrets(env, "env"), ["abc def", "./not-a-path", "envcred-s3cret-7x", "2026-11-28T10:00:00Z-build"], "a path, a plain URL and a word stay");
  assert.deepEqual(configuredSecrets(undefined, "env"), []);
});

test("known values are hidden wherever they are, longest first; those under 8 characters stay", () => {
  const hiding = secretHiding(["abcd1234", undefined, "true", "1"]);
  hiding.know(["abcd1234-and-more"]);
  assert.equal(hiding.hide("x abcd1234-and-more y abcd1234 z true 1"), "x *** y *** z true 1");
  assert.equal(hiding.hide("see https://u:pw@example.com/a?k=v and /home/ann/project"), "see https://***@example.com/a?*** and /home/ann/project");
  hiding.know(["sk-late-learnt"]);
  assert.equal(hiding.hide("stderr: auth with sk-late-learnt failed"), "stderr: auth with *** failed");
});

test("a long line (an MCP server's stderr, a runner's last words) is hidden at once, whatever it holds", () => {
  const hiding = secretHiding();
  for (const line of ["a-".repeat(50_000), "--a".repeat(33_000), "a.".repeat(50_000), `${"x-".repeat(50_000)}X-Api-Key: k3y --token=t0k https://ann:pw@example.com/`]) {
    const started = performance.now();
    const shown = hiding.hide(line);
    const ms = performance.now() - started;
    assert.ok(ms < 1_000, `${Math.round(ms)} ms for ${JSON.stringify(line.slice(0, 12))}…`);
    if (line.includes("k3y")) assert.match(shown, /X-Api-Key: \*\*\* --token=\*\*\* https:\/\/\*\*\*@example\.com\/$/);
  }
});
