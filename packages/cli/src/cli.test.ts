// The real `harness` command, spawned as a user would run it, against the fake Anthropic server.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn, spawnSync } from "node:child_process";
import { once } from "node:events";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { holdLock, startFakeAnthropic, startFakeOpenAI, toolThenText } from "@harness/test-utils";
import { bin, harness, harnessShell, root, tempDir, withFake } from "./test-support.ts";
import { GC_FLAGS } from "@harness/server";

/** Whether process `pid` is gone within ten seconds (an exited child of a dead parent is reaped
 * soon, later on a busy machine; one left running never goes). */
async function gone(pid: number): Promise<boolean> {
  for (let i = 0; i < 500; i++) {
    try {
      process.kill(pid, 0);
    } catch {
      return true;
    }
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return false;
}

test("harness run streams the reply to stdout and shows a Bash tool call on stderr", async (t) => {
  const fake = await withFake(
    t,
    startFakeAnthropic({ replies: toolThenText("Bash", { command: "echo made > note.txt && cat note.txt" }, "The note says made.") }),
  );
  const dir = tempDir(t);
  const { result } = harness(["run", "--cwd", dir, "--model", "claude-test", "--permission-mode", "acceptEdits", "write a note"], {
    ANTHROPIC_API_KEY: "test-key",
    ANTHROPIC_BASE_URL: fake.url,
  });
  const { code, stdout, stderr } = await result;

  assert.equal(code, 0, stderr);
  assert.equal(stdout, "The note says made.\n");
  assert.match(stderr, /^● Bash\(echo made > note\.txt && cat note\.txt\)\n {2}⎿ {2}made\n$/);
  assert.equal(readFileSync(join(dir, "note.txt"), "utf8"), "made\n");

  assert.equal(fake.requests.length, 2);
  assert.equal(fake.requests[0].body.model, "claude-test");
  assert.equal(fake.requests[0].headers["x-api-key"], "test-key");
  const toolResult = JSON.stringify(fake.requests[1].body.messages.at(-1));
  assert.match(toolResult, /tool_result/);
  assert.match(toolResult, /made/);
});

test("a tool call whose input the output limit cut off is answered with an error, and the run goes on", async (t) => {
  const fake = await withFake(
    t,
    startFakeAnthropic({
      replies: [
        { toolUses: [{ name: "Write", input: {}, inputJson: '{"file_path": "big.txt", "content": "line 1\\nline' }], stopReason: "max_tokens" },
        { text: "I will write it in parts." },
      ],
    }),
  );
  const dir = tempDir(t);
  const { result } = harness(["run", "--cwd", dir, "--permission-mode", "acceptEdits", "write a big file"], { ANTHROPIC_API_KEY: "k", ANTHROPIC_BASE_URL: fake.url });
  const { code, stdout, stderr } = await result;
  assert.equal(code, 0, stderr);
  assert.equal(stdout, "I will write it in parts.\n");
  assert.equal(existsSync(join(dir, "big.txt")), false, "the cut-off call did not run");
  const [assistant, answer] = fake.requests[1].body.messages.slice(-2) as { content: { type: string; input?: unknown; is_error?: boolean; content?: string }[] }[];
  assert.deepEqual(assistant.content.find((b) => b.type === "tool_use")?.input, {});
  const toolResult = answer.content.find((b) => b.type === "tool_result");
  assert.equal(toolResult?.is_error, true);
  assert.match(String(toolResult?.content), /not a valid JSON object, so the tool did not run.*output token limit/);
});

test("problems in the project's configuration are shown on stderr, and the run goes on", async (t) => {
  const fake = await withFake(t, startFakeAnthropic({ replies: [{ text: "fine" }] }));
  const dir = tempDir(t);
  mkdirSync(join(dir, ".claude"));
  writeFileSync(join(dir, ".claude", "settings.json"), "{ this is not json");
  writeFileSync(join(dir, "CLAUDE.md"), "See @missing-file.md\n");
  const { code, stdout, stderr } = await harness(["run", "--cwd", dir, "hello"], { ANTHROPIC_API_KEY: "k", ANTHROPIC_BASE_URL: fake.url, HOME: tempDir(t) }).result;
  assert.equal(code, 0, stderr);
  assert.equal(stdout, "fine\n");
  const lines = stderr.trimEnd().split("\n");
  assert.equal(lines.length, 2, stderr);
  assert.match(lines[0], /^! .*\.claude\/settings\.json: invalid JSON/);
  assert.match(lines[1], /^! .*CLAUDE\.md: Import @missing-file\.md not found/);
});

test("a retried request, a reply cut off at max_tokens, a paused turn and a refusal are each said on stderr", async (t) => {
  const fake = await withFake(
    t,
    startFakeAnthropic({
      replies: [
        { kind: "http-error", status: 529, message: "Overloaded" },
        { text: "Part one, ", stopReason: "pause_turn" },
        { text: "part two", stopReason: "max_tokens" },
        { text: "", stopReason: "refusal" },
      ],
    }),
  );
  const env = { ANTHROPIC_API_KEY: "k", ANTHROPIC_BASE_URL: fake.url, HARNESS_MODEL_RETRIES: "2" };
  const first = await harness(["run", "--cwd", tempDir(t), "write it"], env).result;
  assert.equal(first.code, 0, first.stderr);
  assert.equal(first.stdout, "Part one, part two\n", "the paused turn went on");
  assert.equal(fake.requests.length, 3);
  const notices = first.stderr.trimEnd().split("\n");
  assert.match(notices[0], /^! The model request failed \(Anthropic API error 529 \(overloaded_error\): Overloaded\); trying again in \d+ ms \(attempt 2\)\.$/);
  assert.equal(notices[1], "! The reply was cut off at the model's output token limit (max_tokens); it is incomplete.");

  const refused = await harness(["run", "--cwd", tempDir(t), "something else"], env).result;
  assert.equal(refused.code, 1);
  assert.equal(refused.stderr, "! The prompt the model declined is left out of the conversation, so that it does not draw further refusals.\nharness: The model declined to answer (stop reason: refusal).\n");
});

test("without a permission mode that allows it, a headless run refuses a call that needs approval", async (t) => {
  const fake = await withFake(
    t,
    startFakeAnthropic({ replies: toolThenText("Bash", { command: "echo made > note.txt" }, "I could not write the note.") }),
  );
  const dir = tempDir(t);
  const { code, stderr } = await harness(["run", "--cwd", dir, "write a note"], { ANTHROPIC_API_KEY: "test-key", ANTHROPIC_BASE_URL: fake.url }).result;
  assert.equal(code, 0, stderr);
  assert.equal(existsSync(join(dir, "note.txt")), false);
  const toolResult = JSON.stringify(fake.requests[1].body.messages.at(-1));
  assert.match(toolResult, /is_error/);
  assert.match(toolResult, /no one to approve|not granted/i);
  // What the user sees says how to let it through, with the flag Claude Code users reach for first.
  assert.match(stderr, /Allow it with --allowedTools or in \.claude\/settings\.json, or run with --permission-mode acceptEdits or bypassPermissions\./);
});

test("--allowedTools lets the calls its rules match through a headless run; --disallowedTools refuses them even in bypassPermissions", async (t) => {
  const allowed = await withFake(t, startFakeAnthropic({ replies: toolThenText("Bash", { command: "touch note.txt" }, "Made.") }));
  const dir = tempDir(t);
  const env = { ANTHROPIC_API_KEY: "test-key" };
  const ran = await harness(["run", "--cwd", dir, "--allowedTools", "Read,Bash(touch:*)", "make a note"], { ...env, ANTHROPIC_BASE_URL: allowed.url }).result;
  assert.equal(ran.code, 0, ran.stderr);
  assert.equal(existsSync(join(dir, "note.txt")), true);

  const refused = await withFake(t, startFakeAnthropic({ replies: toolThenText("Bash", { command: "touch other.txt" }, "Refused.") }));
  const stopped = await harness(["run", "--cwd", dir, "--permission-mode", "bypassPermissions", "--disallowedTools", "Bash(touch:*)", "make another"], {
    ...env,
    ANTHROPIC_BASE_URL: refused.url,
  }).result;
  assert.equal(stopped.code, 0, stopped.stderr);
  assert.equal(existsSync(join(dir, "other.txt")), false);
  assert.match(JSON.stringify(refused.requests[1].body.messages.at(-1)), /denied by the deny rule/);

  const bad = await harness(["run", "--allowedTools", "bash(ls)", "hi"], env).result;
  assert.equal(bad.code, 2);
  assert.match(bad.stderr, /--allowedTools: "bash" is not a tool name/);
});

test("an unknown --permission-mode is a usage error", async () => {
  const { code, stderr } = await harness(["run", "--permission-mode", "yolo", "hi"], { ANTHROPIC_API_KEY: "k" }).result;
  assert.equal(code, 2);
  assert.match(stderr, /--permission-mode must be one of default, acceptEdits, plan, bypassPermissions/);
});

test("a model failure exits 1 with one line on stderr and no stack trace", async (t) => {
  const fake = await withFake(
    t,
    startFakeAnthropic({ replies: [{ kind: "http-error", status: 400, message: "max_tokens is too large" }] }),
  );
  const { code, stdout, stderr } = await harness(["run", "hello"], { ANTHROPIC_API_KEY: "test-key", ANTHROPIC_BASE_URL: fake.url }).result;
  assert.equal(code, 1);
  assert.equal(stdout, "");
  assert.equal(stderr.split("\n").filter(Boolean).length, 1, stderr);
  assert.match(stderr, /^harness: .*400.*max_tokens is too large/);
  assert.doesNotMatch(stderr, /\n\s+at /);
});

test("a key the API refuses (401) fails the run saying which variable holds the key, as Claude Code says to fix it", async (t) => {
  const fake = await withFake(t, startFakeAnthropic({ replies: [{ kind: "http-error", status: 401, errorType: "authentication_error", message: "invalid x-api-key" }] }));
  const { code, stderr } = await harness(["run", "--cwd", tempDir(t), "hello"], { ANTHROPIC_API_KEY: "wrong-key", ANTHROPIC_BASE_URL: fake.url }).result;
  assert.equal(code, 1);
  assert.equal(stderr.split("\n").filter(Boolean).length, 1, stderr);
  assert.match(stderr, /^harness: Anthropic API error 401 \(authentication_error\): invalid x-api-key; the key was refused: check ANTHROPIC_API_KEY \(or ANTHROPIC_AUTH_TOKEN, or the settings' apiKeyHelper\)\n$/);
});

test("without ANTHROPIC_API_KEY, run says so in one line and calls no model", async (t) => {
  const fake = await withFake(t, startFakeAnthropic({ replies: [{ text: "unused" }] }));
  const { code, stdout, stderr } = await harness(["run", "hello"], { ANTHROPIC_API_KEY: "", ANTHROPIC_BASE_URL: fake.url }).result;
  assert.equal(code, 1);
  assert.equal(stdout, "");
  assert.equal(stderr.split("\n").filter(Boolean).length, 1, stderr);
  assert.match(stderr, /ANTHROPIC_API_KEY/);
  assert.equal(fake.requests.length, 0);
  // Bad usage is still said first.
  const usage = await harness(["run", "--cwd", join(tempDir(t), "missing"), "hello"], { ANTHROPIC_API_KEY: "" }).result;
  assert.equal(usage.code, 2);
  assert.match(usage.stderr, /^harness: --cwd: .*missing is not a directory\n$/);
});

test("a prompt piped in runs when none is given or with -; empty input is a usage error", async (t) => {
  const fake = await withFake(t, startFakeAnthropic({ replies: [{ text: "read it" }, { text: "again" }] }));
  const env = { ANTHROPIC_API_KEY: "k", ANTHROPIC_BASE_URL: fake.url, HOME: tempDir(t) };
  const piped = await harness(["run", "--cwd", tempDir(t)], env, { stdin: "explain this diff:\n+ added a line\n" }).result;
  assert.equal(piped.code, 0, piped.stderr);
  assert.equal(piped.stdout, "read it\n");
  assert.match(JSON.stringify(fake.requests[0].body.messages.at(-1)), /explain this diff:\\n\+ added a line/);
  const dash = await harness(["run", "--cwd", tempDir(t), "-"], env, { stdin: "second prompt" }).result;
  assert.equal(dash.code, 0, dash.stderr);
  assert.match(JSON.stringify(fake.requests[1].body.messages.at(-1)), /second prompt/);
  const empty = await harness(["run"], env, { stdin: "  \n" }).result;
  assert.equal(empty.code, 2);
  assert.equal(empty.stderr, 'harness: a prompt is needed: standard input was empty; harness run "<prompt>", or pipe it in (try "harness run --help")\n');
  assert.equal(fake.requests.length, 2);
});

test("input piped in beside a prompt follows the prompt, as with claude -p; a pipe a parent program leaves open is not waited for", async (t) => {
  const fake = await withFake(t, startFakeAnthropic({ replies: [{ text: "one" }, { text: "two" }, { text: "three" }] }));
  const dir = tempDir(t);
  const env = { ANTHROPIC_API_KEY: "k", ANTHROPIC_BASE_URL: fake.url, DIR: dir };
  const sent = (i: number) => (fake.requests[i].body.messages.at(-1) as { content: unknown }).content;
  const textOf = (content: unknown) => (typeof content === "string" ? content : (content as { text?: string }[]).map((b) => b.text ?? "").join(""));
  // A shell pipe, and a file redirected in.
  writeFileSync(join(dir, "log.txt"), "ERROR disk full\n");
  const piped = await harnessShell(`printf 'line 1\\nline 2\\n' | bash "$HARNESS" run --cwd "$DIR" "explain this log"`, env).result;
  assert.equal(piped.code, 0, piped.stderr);
  assert.equal(textOf(sent(0)), "explain this log\n\nline 1\nline 2");
  const redirected = await harnessShell(`bash "$HARNESS" run --cwd "$DIR" "what failed?" < "$DIR/log.txt"`, env).result;
  assert.equal(redirected.code, 0, redirected.stderr);
  assert.equal(textOf(sent(1)), "what failed?\n\nERROR disk full");
  // A program that starts harness with a pipe for its input and never closes it: the prompt alone.
  const { child, result } = harness(["run", "--cwd", dir, "just this"], env, { stdin: { open: true } });
  t.after(() => child.stdin?.destroy());
  const alone = await result;
  assert.equal(alone.code, 0, alone.stderr);
  assert.equal(textOf(sent(2)), "just this");
});

test("piped input: empty beside a prompt leaves the prompt alone; a byte-order mark is dropped; over 8 MiB is refused with the way out", async (t) => {
  const fake = await withFake(t, startFakeAnthropic({ replies: [{ text: "one" }, { text: "two" }] }));
  const env = { ANTHROPIC_API_KEY: "k", ANTHROPIC_BASE_URL: fake.url, DIR: tempDir(t) };
  const content = (i: number) => JSON.stringify((fake.requests[i].body.messages.at(-1) as { content: unknown }).content);
  const empty = await harnessShell(`: | bash "$HARNESS" run --cwd "$DIR" "just the prompt"`, env).result;
  assert.equal(empty.code, 0, empty.stderr);
  assert.match(content(0), /"just the prompt"/);
  const marked = await harnessShell(`printf '\\xef\\xbb\\xbfnotes' | bash "$HARNESS" run --cwd "$DIR" "read"`, env).result;
  assert.equal(marked.code, 0, marked.stderr);
  assert.match(content(1), /read\\n\\nnotes"/);
  assert.doesNotMatch(content(1), /\uFEFF/);

  const big = await harnessShell(`head -c 9000000 /dev/zero | tr '\\0' a | bash "$HARNESS" run --cwd "$DIR" "summarize"`, env).result;
  assert.equal(big.code, 2);
  assert.equal(big.stderr, "harness: the input piped in after the prompt: standard input is over 8 MiB (to run without it: < /dev/null)\n");
  const bigPrompt = await harnessShell(`head -c 9000000 /dev/zero | tr '\\0' a | bash "$HARNESS" run --cwd "$DIR" -`, env).result;
  assert.equal(bigPrompt.code, 2);
  assert.match(bigPrompt.stderr, /^harness: the prompt on standard input is over 8 MiB/);
  assert.equal(fake.requests.length, 2);
});

test("a shell pipe that stays open is waited for, with a line saying so and how to run without it", async (t) => {
  const fake = await withFake(t, startFakeAnthropic({ replies: [{ text: "done" }] }));
  const dir = tempDir(t);
  const env = { ANTHROPIC_API_KEY: "k", ANTHROPIC_BASE_URL: fake.url, DIR: dir };
  // The input comes only once the run has said it waits for it.
  const { child, result } = harnessShell(`(while [ ! -e "$DIR/go" ]; do sleep 0.05; done; printf 'late input') | bash "$HARNESS" run --cwd "$DIR" "summarize"`, env);
  child.stderr!.on("data", (text: string) => {
    if (text.includes("waiting for the input piped in")) writeFileSync(join(dir, "go"), "");
  });
  const slow = await result;
  assert.equal(slow.code, 0, slow.stderr);
  assert.equal(slow.stderr, "harness: waiting for the input piped in to end (to run without it: < /dev/null)\n");
  assert.match(JSON.stringify(fake.requests[0].body.messages.at(-1)), /summarize\\n\\nlate input/);
});

test("a model served elsewhere (openai/…) runs without ANTHROPIC_API_KEY", async (t) => {
  const fake = await startFakeOpenAI({ replies: [{ text: "from the other model" }] });
  t.after(() => fake.close());
  const dir = tempDir(t);
  const { code, stdout, stderr } = await harness(["run", "--cwd", dir, "--model", "openai/gpt-test", "hello"], {
    ANTHROPIC_API_KEY: "",
    OPENAI_BASE_URL: fake.url,
    OPENAI_API_KEY: "k",
  }).result;
  assert.equal(code, 0, stderr);
  assert.equal(stdout, "from the other model\n");
});

test("bad flags and unknown commands exit 2 with a one-line error and a usage hint", async () => {
  for (const args of [["run", "--frobnicate", "hi"], ["run"], ["run", "hi", "--max-turns", "many"], ["deploy"]]) {
    const { code, stdout, stderr } = await harness(args, { ANTHROPIC_API_KEY: "test-key" }).result;
    assert.equal(code, 2, args.join(" "));
    assert.equal(stdout, "");
    assert.match(stderr, /^harness: .+ \(try "harness (run )?--help"\)\n$/, args.join(" "));
  }
});

test("the harness command runs under Node 24 even when an older node comes first on PATH", async (t) => {
  const older = ["/usr/bin/node", "/usr/local/bin/node"].find((p) => {
    const r = spawnSync(p, ["--version"], { encoding: "utf8" });
    return r.status === 0 && Number(/^v(\d+)/.exec(r.stdout)?.[1]) < 24;
  });
  if (!older) return t.skip("no node older than 24 on this machine to put first on PATH");
  const { code, stdout, stderr } = await harness(["--version"], { PATH: `${dirname(older)}:${process.env.PATH}` }).result;
  assert.equal(code, 0, stderr);
  assert.match(stdout, /\(node v24\./);
});

test("--help and --version", async () => {
  const help = await harness(["--help"], {}).result;
  assert.equal(help.code, 0);
  assert.match(help.stdout, /harness run \[options\] "<prompt>"/);
  const runHelp = await harness(["run", "--help"], {}).result;
  assert.match(runHelp.stdout, /--max-turns N/);
  const version = await harness(["--version"], {}).result;
  assert.equal(version.code, 0);
  assert.match(version.stdout, /^harness \d+\.\d+\.\d+ \(node v\d+\.\d+\.\d+\)\n$/);
});

test("Ctrl+C cancels a run in flight and exits 130", async (t) => {
  let release!: () => void;
  const hold = new Promise<void>((resolve) => (release = resolve));
  t.after(() => release());
  const fake = await withFake(t, startFakeAnthropic({ replies: [{ text: ["Thinking", " hard"], hold }] }));
  const { child, result } = harness(["run", "think"], { ANTHROPIC_API_KEY: "test-key", ANTHROPIC_BASE_URL: fake.url });
  await fake.waitForRequests(1);
  child.kill("SIGINT");
  const { code, stdout, stderr } = await result;
  assert.equal(code, 130);
  // What the reply had come to (stdout is a pipe: it comes at the end), if the text had arrived.
  assert.match(stdout, /^(Thinking hard\n)?$/);
  assert.equal(stderr, "harness: cancelled\n");
});

test("Ctrl+C while an MCP server hangs at startup exits at once and stops the server", async (t) => {
  const dir = tempDir(t);
  // The server says it started (with its process id) and never answers the handshake.
  const started = join(dir, "started");
  writeFileSync(join(dir, ".mcp.json"), JSON.stringify({ mcpServers: { stuck: { command: "bash", args: ["-c", `echo $$ > ${started}.tmp && mv ${started}.tmp ${started} && exec sleep 1000`] } } }));
  // Approved in the user's settings, as a project's servers must be.
  const home = tempDir(t);
  mkdirSync(join(home, ".claude"));
  writeFileSync(join(home, ".claude", "settings.json"), JSON.stringify({ enabledMcpjsonServers: ["stuck"] }));
  const { child, result } = harness(["run", "--cwd", dir, "hello"], { ANTHROPIC_API_KEY: "k", ANTHROPIC_BASE_URL: "http://127.0.0.1:9", HOME: home });
  t.after(() => child.kill("SIGKILL"));
  while (!existsSync(started)) await new Promise((resolve) => setTimeout(resolve, 20));
  const serverPid = Number(readFileSync(started, "utf8"));
  const interrupted = performance.now();
  child.kill("SIGINT");
  const { code } = await result;
  assert.equal(code, 130);
  // Not the MCP SDK's 2 s wait for a server to exit by itself after its input closes.
  assert.ok(performance.now() - interrupted < 1_500, `took ${Math.round(performance.now() - interrupted)} ms after Ctrl+C`);
  assert.ok(await gone(serverPid), "the MCP server process is still running");
});

test("harness serve prints its URL, answers, warns about a missing key, and stops on SIGTERM", async (t) => {
  const dir = tempDir(t);
  let listening!: (url: string) => void;
  const urlPrinted = new Promise<string>((resolve) => (listening = resolve));
  const { child, result } = harness(["serve", "--port", "0"], { ANTHROPIC_API_KEY: "", HARNESS_DATA_DIR: join(dir, "data"), HARNESS_TOKEN: "" }, {
    onStdout: (text) => {
      const match = /(http:\/\/127\.0\.0\.1:\d+)/.exec(text);
      if (match) listening(match[1]);
    },
  });
  t.after(() => child.kill("SIGKILL"));
  const url = await urlPrinted;
  const health = await fetch(`${url}/health`);
  assert.equal(health.status, 200);
  child.kill("SIGTERM");
  const { code, stderr } = await result;
  assert.equal(code, 0, stderr);
  assert.match(stderr, /^harness: warning: ANTHROPIC_API_KEY is not set.*\n/);
});

test("harness serve with a data directory it cannot make or write in says why in one line and exits 1", async (t) => {
  const dir = tempDir(t);
  writeFileSync(join(dir, "a-file"), "x");
  // The second is under /proc, where Node's own recursive mkdir never returns.
  for (const [dataDir, reason] of [
    [join(dir, "a-file"), /cannot make the data directory .*a-file: a file is in the way$/m],
    [join(dir, "a-file", "data"), /cannot make the data directory .*data: a file is in the way$/m],
    ["/proc/harness-nowhere/data", /cannot make the data directory \/proc\/harness-nowhere\/data: ENOENT.*\/proc\/harness-nowhere/],
    // sysfs takes no files, even from root: as a read-only or another user's directory would.
    ["/sys", /cannot write in the data directory \/sys: permission denied \(it belongs to another user, or its mode forbids writing\)$/m],
  ] as const) {
    const { result } = harness(["serve", "--port", "0"], { ANTHROPIC_API_KEY: "x", HARNESS_DATA_DIR: dataDir, HARNESS_TOKEN: "" });
    const { code, stderr } = await result;
    assert.equal(code, 1, stderr);
    assert.match(stderr, /^harness: cannot start the server: .*\n$/);
    assert.match(stderr, reason);
  }
});

test("harness serve on a session database another process holds locked says so in one line and exits 1", async (t) => {
  const dir = tempDir(t);
  const env = { ANTHROPIC_API_KEY: "x", HARNESS_DATA_DIR: dir, HARNESS_TOKEN: "" };
  // Locked as the sqlite3 shell inside a transaction would.
  const lock = await holdLock(join(dir, "harness.db"));
  t.after(() => lock.release());

  const { code, stderr } = await harness(["serve", "--port", "0"], env).result;
  assert.equal(code, 1, stderr);
  assert.match(stderr, /^harness: cannot start the server: another process holds the lock on .*harness\.db \(a transaction is open on it\)/m);
});

test("a second harness serve on the data directory of a running one is refused; after it stops, it starts", async (t) => {
  const dir = tempDir(t);
  const env = { ANTHROPIC_API_KEY: "x", HARNESS_DATA_DIR: join(dir, "data"), HARNESS_TOKEN: "" };
  const serve = () => {
    let listening!: (url: string) => void;
    const url = new Promise<string>((resolve) => (listening = resolve));
    const started = harness(["serve", "--port", "0"], env, {
      onStdout: (text) => {
        const match = /(http:\/\/127\.0\.0\.1:\d+)/.exec(text);
        if (match) listening(match[1]);
      },
    });
    t.after(() => started.child.kill("SIGKILL"));
    return { ...started, url };
  };
  const first = serve();
  await first.url;
  const second = await serve().result;
  assert.equal(second.code, 1, second.stderr);
  assert.match(second.stderr, new RegExp(`^harness: cannot start the server: another Harness server \\(pid \\d+\\) is using the data directory .*data: stop it, or give this one another HARNESS_DATA_DIR\\n$`));
  // Given by --data-dir, the way out is named as it was given.
  const flagged = await harness(["serve", "--port", "0", "--data-dir", join(dir, "data")], { ANTHROPIC_API_KEY: "x", HARNESS_TOKEN: "" }).result;
  assert.equal(flagged.code, 1, flagged.stderr);
  assert.match(flagged.stderr, /is using the data directory .*data: stop it, or give this one another --data-dir\n$/);
  first.child.kill("SIGTERM");
  assert.equal((await first.result).code, 0);
  const third = serve();
  assert.equal((await fetch(`${await third.url}/health`)).status, 200);
  third.child.kill("SIGTERM");
  assert.equal((await third.result).code, 0);
});

test("harness serve shuts down cleanly when its terminal closes (SIGHUP)", async (t) => {
  const dir = tempDir(t);
  let listening!: () => void;
  const up = new Promise<void>((resolve) => (listening = resolve));
  const { child, result } = harness(["serve", "--port", "0"], { ANTHROPIC_API_KEY: "x", HARNESS_DATA_DIR: join(dir, "data"), HARNESS_TOKEN: "" }, {
    onStdout: (text) => text.includes("listening on") && listening(),
  });
  t.after(() => child.kill("SIGKILL"));
  await up;
  // The command starts the server with the garbage collection its runners have (gc-flags.ts).
  const cmdline = readFileSync(`/proc/${child.pid}/cmdline`, "utf8").split("\0");
  for (const flag of GC_FLAGS) assert.ok(cmdline.includes(flag), flag);
  child.kill("SIGHUP");
  const { code, stderr } = await result;
  assert.equal(code, 0, stderr);
  assert.match(stderr, /harness: hung up, shutting down\n$/);
  assert.equal(existsSync(join(dir, "data", "server.lock")), false, "the data directory is free again");
});

test("harness run refuses run settings it cannot use, naming each, before calling the model", async (t) => {
  const fake = await withFake(t, startFakeAnthropic({ replies: [{ text: "never" }] }));
  const dir = tempDir(t);
  const { code, stdout, stderr } = await harness(["run", "--cwd", dir, "hello"], {
    ANTHROPIC_API_KEY: "k",
    ANTHROPIC_BASE_URL: fake.url,
    HARNESS_CONTEXT_WINDOW: "lots",
    HARNESS_COMPACT_THRESHOLD: "150",
  }).result;
  assert.equal(code, 1);
  assert.equal(stdout, "");
  assert.equal(stderr, 'harness: HARNESS_CONTEXT_WINDOW must be a whole number of tokens, got "lots"; HARNESS_COMPACT_THRESHOLD must be a fraction (0.75) or a percentage (75) of the context window, got "150"\n');
  assert.equal(fake.requests.length, 0);
  const badUrl = await harness(["run", "--cwd", dir, "hello"], { ANTHROPIC_API_KEY: "k", ANTHROPIC_BASE_URL: "notaurl" }).result;
  assert.equal(badUrl.code, 1);
  assert.equal(badUrl.stderr, 'harness: ANTHROPIC_BASE_URL must be an http(s) URL such as http://127.0.0.1:8080, got "notaurl"\n');
});

test("harness run with stdout and stderr in one pipe keeps tool lines apart from the answer, with the text said before them; with stderr closed the answer still arrives", async (t) => {
  const replies = () => [{ text: "Let me look.", toolUses: [{ name: "Bash", input: { command: "echo hi" } }] }, { text: "Done." }];
  const fake = await withFake(t, startFakeAnthropic({ replies: [...replies(), ...replies()] }));
  const dir = tempDir(t);
  const env = { ...process.env, NO_COLOR: "1", ANTHROPIC_API_KEY: "test-key", ANTHROPIC_BASE_URL: fake.url, HARNESS_MODEL_RETRIES: "0" };
  const run = `bash ${JSON.stringify(bin)} run --cwd ${JSON.stringify(dir)} --permission-mode bypassPermissions look`;
  // Not spawnSync: the fake model answers from this process.
  const shell = async (line: string) => {
    const child = spawn("bash", ["-c", line], { env, stdio: ["ignore", "pipe", "inherit"] });
    let stdout = "";
    child.stdout.setEncoding("utf8").on("data", (d: string) => (stdout += d));
    const [status] = await once(child, "close");
    return { status, stdout };
  };
  const shared = await shell(`${run} 2>&1`);
  assert.equal(shared.status, 0, shared.stdout);
  assert.equal(shared.stdout, "Let me look.\n● Bash(echo hi)\n  ⎿  hi\nDone.\n");
  const closed = await shell(`${run} 2>&-`);
  assert.equal(closed.status, 0);
  assert.equal(closed.stdout, "Done.\n");
});

test("harness -p \"…\" runs as harness run does, as claude -p would", async (t) => {
  const fake = await withFake(t, startFakeAnthropic({ replies: [{ text: "printed" }] }));
  const { code, stdout, stderr } = await harness(["-p", "--cwd", tempDir(t), "say it"], { ANTHROPIC_API_KEY: "k", ANTHROPIC_BASE_URL: fake.url }).result;
  assert.equal(code, 0, stderr);
  assert.equal(stdout, "printed\n");
  assert.match(JSON.stringify(fake.requests[0].body.messages), /say it/);
});

test("harness serve off loopback without a token names the one way to give it: HARNESS_TOKEN", async (t) => {
  const { code, stderr } = await harness(["serve", "--host", "0.0.0.0", "--port", "0", "--data-dir", join(tempDir(t), "data")], { ANTHROPIC_API_KEY: "x", HARNESS_TOKEN: "" }).result;
  assert.equal(code, 1, stderr);
  assert.match(stderr, /refusing to listen on 0\.0\.0\.0 without a token.*Set HARNESS_TOKEN in the server's environment/);
  assert.doesNotMatch(stderr, /token option/);
});

test("harness serve says, after its URL, where its web UI is and where the sessions work: their own empty directories, or the --project", async (t) => {
  const dir = tempDir(t);
  const started = (args: string[]) => {
    let shown!: (text: string) => void;
    const lines = new Promise<string>((resolve) => (shown = resolve));
    const run = harness(["serve", "--port", "0", ...args], { ANTHROPIC_API_KEY: "x", HARNESS_TOKEN: "" }, { onStdout: (text) => /sessions work/.test(text) && shown(text) });
    t.after(() => run.child.kill("SIGKILL"));
    return { ...run, lines };
  };
  const own = started(["--data-dir", join(dir, "data")]);
  assert.match(
    await own.lines,
    new RegExp(`^Harness listening on (http://127\\.0\\.0\\.1:\\d+)\\nweb UI: open \\1/ in a browser\\nsessions work in their own empty directories under ${join(dir, "data", "workspaces")}; harness serve --project DIR works on a project instead\\n$`),
  );
  own.child.kill("SIGTERM");
  assert.equal((await own.result).code, 0);
  mkdirSync(join(dir, "proj"));
  const project = started(["--data-dir", join(dir, "data2"), "--project", join(dir, "proj")]);
  assert.match(await project.lines, new RegExp(`\\nsessions work in the project ${join(dir, "proj")}, all of them on its files\\n$`));
  project.child.kill("SIGTERM");
  assert.equal((await project.result).code, 0);
});

test("harness \"<prompt>\" chats with the agent on this project, and harness -c goes on with that chat, as claude and claude -c do", async (t) => {
  const fake = await withFake(t, startFakeAnthropic({ replies: [{ text: "First answer." }, { text: "Second answer." }] }));
  const env = { HOME: tempDir(t), ANTHROPIC_API_KEY: "k", ANTHROPIC_BASE_URL: fake.url, HARNESS_USER: "me" };
  const project = tempDir(t);
  const first = await harness(["what is here?"], env, { cwd: project, stdin: "" }).result;
  assert.equal(first.code, 0, first.stderr);
  assert.equal(first.stdout, "First answer.\n");
  const again = await harness(["-c"], env, { cwd: project, stdin: "and then?\n" }).result;
  assert.equal(again.code, 0, again.stderr);
  assert.match(again.stdout, /Second answer\.\n$/);
  assert.deepEqual(
    (fake.requests[1].body.messages as { role: string }[]).map((m) => m.role),
    ["user", "assistant", "user"],
    "the second prompt went on with the first conversation",
  );
});
