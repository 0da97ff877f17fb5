import assert from "node:assert/strict";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { after, before, describe, test } from "node:test";
import { startHttpProxy, startTlsFront, TEST_CA_FILE, TEST_CLIENT_CERT_FILE, TEST_CLIENT_KEY_FILE } from "@harness/test-utils";
import { runHttpHook } from "./http-hook.ts";
import { runHooks } from "./run-hooks.ts";
import { waitFor } from "./testing.ts";
import type { HooksConfig, HttpHook, PreToolUseInput } from "./types.ts";

type Seen = { method: string; url: string; headers: http.IncomingHttpHeaders; body: string };
/** `never`: no answer at all; the path is listed in `hungUp` once the hook closes the connection. */
type Answer = { status?: number; body?: string; headers?: Record<string, string>; delayMs?: number; never?: true };

/** A hook server: each path answers as `answers` says, and every request is kept. */
let server: http.Server;
let base: string;
const seen: Seen[] = [];
const answers = new Map<string, Answer>();
const hungUp: string[] = [];

before(async () => {
  server = http.createServer((req, res) => {
    let body = "";
    req.setEncoding("utf8").on("data", (chunk: string) => (body += chunk));
    req.on("end", () => {
      seen.push({ method: req.method!, url: req.url!, headers: req.headers, body });
      const answer = answers.get(req.url!) ?? {};
      if (answer.never) return void res.on("close", () => hungUp.push(req.url!));
      setTimeout(() => {
        res.writeHead(answer.status ?? 200, answer.headers ?? {});
        res.end(answer.body ?? "");
      }, answer.delayMs ?? 0);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
after(() => {
  server.closeAllConnections();
  server.close();
});

const input: PreToolUseInput = { session_id: "s1", transcript_path: "/t.jsonl", cwd: "/w", hook_event_name: "PreToolUse", tool_name: "Bash", tool_input: { command: "rm -rf build" }, tool_use_id: "toolu_1" };
const opts = (env: Record<string, string> = {}, signal = new AbortController().signal) => ({ cwd: "/w", projectDir: "/w", signal, env });
const hook = (path: string, extra: Partial<HttpHook> = {}): HttpHook => ({ type: "http", url: `${base}${path}`, ...extra });
const on = (...hooks: HttpHook[]): HooksConfig => ({ PreToolUse: [{ matcher: "Bash", hooks }] });
const lastTo = (path: string) => seen.filter((s) => s.url === path).at(-1)!;

describe("http hooks", () => {
  test("the event is POSTed as JSON, and a 2xx answer's JSON decides like a command's output", async () => {
    answers.set("/deny", { body: JSON.stringify({ hookSpecificOutput: { hookEventName: "PreToolUse", permissionDecision: "deny", permissionDecisionReason: "no rm -rf here" } }) });
    const result = await runHooks(on(hook("/deny")), "PreToolUse", input, opts());
    const request = lastTo("/deny");
    assert.equal(request.method, "POST");
    assert.equal(request.headers["content-type"], "application/json");
    assert.deepEqual(JSON.parse(request.body), input);
    assert.equal(result.permissionDecision, "deny");
    assert.equal(result.blockReason, "no rm -rf here");
    assert.deepEqual(result.userMessages, []);
  });

  test("headers get only the environment variables the hook allows", async () => {
    const headers = { Authorization: "Bearer $HOOK_TOKEN", "X-Both": "${HOOK_TOKEN}/${SECRET_KEY}", "X-Plain": "fixed" };
    await runHooks(on(hook("/headers", { headers, allowedEnvVars: ["HOOK_TOKEN"] })), "PreToolUse", input, opts({ HOOK_TOKEN: "t0k3n", SECRET_KEY: "do-not-send" }));
    const request = lastTo("/headers");
    assert.equal(request.headers.authorization, "Bearer t0k3n");
    assert.equal(request.headers["x-both"], "t0k3n/");
    assert.equal(request.headers["x-plain"], "fixed");
    assert.ok(!JSON.stringify(request.headers).includes("do-not-send"));
  });

  test("a plain-text answer is context where a command's plain stdout would be", async () => {
    answers.set("/context", { body: "Remember: the staging database is read-only." });
    const config: HooksConfig = { UserPromptSubmit: [{ hooks: [hook("/context")] }] };
    const result = await runHooks(config, "UserPromptSubmit", { session_id: "s1", transcript_path: "/t", hook_event_name: "UserPromptSubmit", prompt: "migrate" }, opts());
    assert.deepEqual(result.additionalContext, ["Remember: the staging database is read-only."]);
  });

  test("an answer that is no valid hook output, or far too long, is read as a command's would be", async () => {
    answers.set("/odd", { body: JSON.stringify({ hookSpecificOutput: { hookEventName: "PreToolUse", permissionDecision: "maybe" } }) });
    const odd = await runHooks(on(hook("/odd")), "PreToolUse", input, opts());
    assert.equal(odd.permissionDecision, undefined);
    assert.equal(odd.blocked, false);
    assert.match(odd.userMessages[0]!, /printed invalid JSON output, ignored: hookSpecificOutput\.permissionDecision/);

    answers.set("/huge", { body: "x".repeat(3 * 1024 * 1024) });
    const config: HooksConfig = { UserPromptSubmit: [{ hooks: [hook("/huge")] }] };
    const huge = await runHooks(config, "UserPromptSubmit", { session_id: "s1", transcript_path: "/t", hook_event_name: "UserPromptSubmit", prompt: "go" }, opts());
    assert.equal(huge.additionalContext.length, 1);
    assert.ok(huge.additionalContext[0]!.length < 11_000, "cut to the hook text limit");
    assert.match(huge.additionalContext[0]!, /\[Hook output truncated: /);
  });

  test("an error status, a redirect, a refused connection and a timeout tell the user and block nothing", async () => {
    answers.set("/broken", { status: 500, body: "database down" });
    answers.set("/moved", { status: 302, headers: { location: "http://elsewhere.example/" } });
    answers.set("/slow", { delayMs: 3_000 });
    const closed = http.createServer();
    await new Promise<void>((resolve) => closed.listen(0, "127.0.0.1", resolve));
    const refused = `http://127.0.0.1:${(closed.address() as AddressInfo).port}/gone`;
    closed.close();

    const result = await runHooks(on(hook("/broken"), hook("/moved"), { type: "http", url: refused }, hook("/slow", { timeout: 0.3 })), "PreToolUse", input, opts());
    assert.equal(result.blocked, false);
    assert.equal(result.permissionDecision, undefined);
    assert.equal(result.continue, true);
    const [broken, moved, gone, slow] = result.userMessages;
    assert.match(broken!, new RegExp(`PreToolUse hook \`${base}/broken\` failed: answered HTTP 500: database down`));
    assert.match(moved!, /answered HTTP 302 \(redirects are not followed\)/);
    assert.match(gone!, /failed: could not reach http:\/\/127\.0\.0\.1:\d+\/gone: .*ECONNREFUSED/);
    // The time it took, a little past the 0.3 s limit on a busy machine.
    assert.match(slow!, /\/slow` timed out after (0\.[3-9]|[1-2](\.\d)?) s and its request was given up on/);
  });

  test("messages name the URL without its credentials, query or path beyond its first part", async () => {
    answers.set("/secret/T0123/XyZ-token?key=abc", { status: 403 });
    const url = `${base.replace("http://", "http://user:pass@")}/secret/T0123/XyZ-token?key=abc`;
    const result = await runHooks(on({ type: "http", url }), "PreToolUse", input, opts());
    assert.equal(result.userMessages.length, 1);
    assert.ok(result.userMessages[0]!.includes(`hook \`${base}/secret/…?…\` failed: answered HTTP 403`), result.userMessages[0]);
    assert.doesNotMatch(result.userMessages[0]!, /pass|key=abc|XyZ-token|T0123/);
    assert.equal(lastTo("/secret/T0123/XyZ-token?key=abc").headers.authorization, `Basic ${Buffer.from("user:pass").toString("base64")}`);
  });

  test("cancelling the run cancels the request, without a message", async () => {
    answers.set("/hang", { never: true });
    const controller = new AbortController();
    const pending = runHooks(on(hook("/hang", { timeout: 600 })), "PreToolUse", input, opts({}, controller.signal));
    await waitFor(() => seen.some((s) => s.url === "/hang"));
    controller.abort();
    // Not cancelled, the request would stay open for the hook's ten minutes.
    await waitFor(() => hungUp.includes("/hang"));
    const result = await pending;
    assert.deepEqual(result.userMessages, []);
    assert.equal(result.results[0]!.aborted, true);
  });

  test("the same URL in two matching groups is asked once", async () => {
    answers.set("/once", {});
    const before = seen.filter((s) => s.url === "/once").length;
    const config: HooksConfig = { PreToolUse: [{ matcher: "Bash", hooks: [hook("/once")] }, { hooks: [hook("/once")] }] };
    await runHooks(config, "PreToolUse", input, opts());
    assert.equal(seen.filter((s) => s.url === "/once").length - before, 1);
  });
});

test("an https hook URL is reached through the run's HTTPS_PROXY, trusting its NODE_EXTRA_CA_CERTS and presenting its client certificate", async (t) => {
  answers.set("/tls", { body: "through the gateway" });
  const gateway = await startTlsFront(base, { requireClientCert: true });
  const proxy = await startHttpProxy();
  t.after(async () => {
    await gateway.close();
    await proxy.close();
  });
  const env = { HTTPS_PROXY: proxy.url, NODE_EXTRA_CA_CERTS: TEST_CA_FILE, CLAUDE_CODE_CLIENT_CERT: TEST_CLIENT_CERT_FILE, CLAUDE_CODE_CLIENT_KEY: TEST_CLIENT_KEY_FILE };
  const url = `https://model.test:${gateway.port}/tls`;
  const result = await runHttpHook({ type: "http", url }, "{}", { env, timeoutMs: 5_000, signal: new AbortController().signal });
  assert.equal(result.exitCode, 0, JSON.stringify(result));
  assert.equal(result.stdout, "through the gateway");
  assert.deepEqual(proxy.seen, [{ method: "CONNECT", target: `model.test:${gateway.port}` }]);
  const { CLAUDE_CODE_CLIENT_CERT: _cert, CLAUDE_CODE_CLIENT_KEY: _key, ...withoutCert } = env;
  const refused = await runHttpHook({ type: "http", url }, "{}", { env: withoutCert, timeoutMs: 5_000, signal: new AbortController().signal });
  assert.notEqual(refused.exitCode, 0);
  assert.match(refused.error ?? "", /asks for a client certificate.*CLAUDE_CODE_CLIENT_CERT/);
});
