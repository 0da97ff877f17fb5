// `harness run --input-format stream-json`: user messages as JSON lines on standard input, each a
// turn of one conversation, as the Agent SDK drives `claude -p`.
import { test } from "node:test";
import assert from "node:assert/strict";
import { startFakeAnthropic } from "@harness/test-utils";
import { parseArgs } from "../../args.ts";
import { harness, tempDir, withFake } from "../../test-support.ts";

const STREAM = ["--input-format", "stream-json", "--output-format", "stream-json"];
const user = (content: unknown) => `${JSON.stringify({ type: "user", message: { role: "user", content } })}\n`;
const linesOf = (stdout: string) => stdout.trimEnd().split("\n").map((line) => JSON.parse(line) as { type: string; [key: string]: unknown });
const PIXEL = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==";

test("stream-json input: each user message is a turn of the same conversation, with a result after each", async (t) => {
  const fake = await withFake(t, startFakeAnthropic({ replies: [{ text: "First answer." }, { text: "Second answer." }] }));
  const dir = tempDir(t);
  const { code, stdout, stderr } = await harness(["run", "--cwd", dir, "--model", "claude-sonnet-4-6", ...STREAM], { ANTHROPIC_API_KEY: "k", ANTHROPIC_BASE_URL: fake.url }, {
    stdin: user("What is one?") + "\n" + user([{ type: "text", text: "And two?" }]),
  }).result;
  assert.equal(code, 0, stderr);
  const lines = linesOf(stdout);
  assert.equal(lines.filter((line) => line.type === "system" && line.subtype === "init").length, 1, "one opening line");
  const results = lines.filter((line) => line.type === "result");
  assert.deepEqual(results.map((r) => [r.subtype, r.result]), [["success", "First answer."], ["success", "Second answer."]]);
  assert.equal(results[0]!.session_id, results[1]!.session_id, "one conversation");
  assert.ok(lines.indexOf(results[0]!) < lines.findIndex((line) => line.type === "assistant" && JSON.stringify(line).includes("Second answer.")), "the first result comes before the second turn's reply");
  assert.equal(fake.requests.length, 2);
  const second = fake.requests[1]!.body.messages as { role: string; content: unknown }[];
  assert.deepEqual(second.map((m) => m.role), ["user", "assistant", "user"], "the second turn goes on with the first");
  assert.match(JSON.stringify(second[0]), /What is one\?/);
  assert.match(JSON.stringify(second[2]), /And two\?/);
});

test("stream-json input: a byte order mark before the first line and CRLF line ends are read as plain lines", async (t) => {
  const fake = await withFake(t, startFakeAnthropic({ replies: [{ text: "First answer." }, { text: "Second answer." }] }));
  const dir = tempDir(t);
  const crlf = (line: string) => line.replace(/\n$/, "\r\n");
  const { code, stdout, stderr } = await harness(["run", "--cwd", dir, "--model", "claude-sonnet-4-6", ...STREAM], { ANTHROPIC_API_KEY: "k", ANTHROPIC_BASE_URL: fake.url }, {
    stdin: `\uFEFF${crlf(user("What is one?"))}${crlf(user("And two?"))}`,
  }).result;
  assert.equal(code, 0, stderr);
  assert.deepEqual(linesOf(stdout).filter((line) => line.type === "result").map((line) => line.result), ["First answer.", "Second answer."]);
  assert.doesNotMatch(JSON.stringify(fake.requests[1]!.body.messages), /\\r|\\ufeff|\uFEFF/i);
});

test("stream-json input: an image block goes to the model with the text", async (t) => {
  const fake = await withFake(t, startFakeAnthropic({ replies: [{ text: "A dot." }] }));
  const dir = tempDir(t);
  const image = { type: "image", source: { type: "base64", media_type: "image/png", data: PIXEL } };
  const { code, stderr } = await harness(["run", "--cwd", dir, "--model", "claude-sonnet-4-6", ...STREAM], { ANTHROPIC_API_KEY: "k", ANTHROPIC_BASE_URL: fake.url }, {
    stdin: user([{ type: "text", text: "What is this?" }, image]),
  }).result;
  assert.equal(code, 0, stderr);
  const sent = (fake.requests[0]!.body.messages as { content: unknown }[])[0]!;
  const blocks = sent.content as { type: string; text?: string; source?: unknown }[];
  assert.ok(blocks.some((b) => b.type === "text" && b.text?.includes("What is this?")), JSON.stringify(blocks));
  assert.deepEqual(blocks.find((b) => b.type === "image")?.source, image.source);
});

test("stream-json input: a line that is not a user message stops the run, naming its line, after the turns before it", async (t) => {
  for (const [bad, problem] of [
    ["not json", /line 2 is not JSON/],
    // Bytes that would retitle or ring the terminal are not echoed to it.
    ["\x1b]0;retitled\x07\x00\xff garbage", /line 2 is not JSON/],
    [JSON.stringify({ type: "assistant", message: { role: "assistant", content: "hi" } }), /line 2: expected a message of type "user", got "assistant"/],
    [JSON.stringify({ type: "user", message: { role: "user", content: 42 } }), /line 2: the message's content must be text or a list of content blocks/],
  ] as const) {
    const fake = await withFake(t, startFakeAnthropic({ replies: [{ text: "Fine." }, { text: "Never." }] }));
    const dir = tempDir(t);
    const { code, stdout, stderr } = await harness(["run", "--cwd", dir, "--model", "claude-sonnet-4-6", ...STREAM], { ANTHROPIC_API_KEY: "k", ANTHROPIC_BASE_URL: fake.url }, {
      stdin: `${user("hello")}${bad}\n${user("never read")}`,
    }).result;
    assert.equal(code, 1, stderr);
    assert.equal(stderr.trim().split("\n").length, 1, stderr);
    assert.match(stderr, /^harness: --input-format stream-json: /);
    assert.match(stderr, problem);
    assert.doesNotMatch(stderr, /\n\s+at /);
    assert.doesNotMatch(stderr.trimEnd(), /[\x00-\x08\x0b-\x1f\x7f]/, "no control characters");
    assert.equal(fake.requests.length, 1, "the turn before it ran, none after");
    assert.equal(linesOf(stdout).filter((line) => line.type === "result").length, 1);
  }
});

test("stream-json input goes only with stream-json output, and takes no prompt argument", () => {
  assert.deepEqual(parseArgs(["run", "--input-format", "stream-json", "--output-format", "json"]), {
    kind: "usage-error",
    message: "--input-format stream-json needs --output-format stream-json",
    topic: "run",
  });
  assert.equal(parseArgs(["run", ...STREAM, "hello"]).kind, "usage-error");
  assert.equal(parseArgs(["run", "--input-format", "xml"]).kind, "usage-error");
  const command = parseArgs(["run", ...STREAM]);
  assert.equal(command.kind === "run" && command.inputFormat, "stream-json");
});

test("stream-json input: SIGTERM or Ctrl+C while the run waits for the next message ends it at once, with that signal's status", async (t) => {
  for (const [signal, status] of [["SIGTERM", 143], ["SIGINT", 130]] as const) {
    const fake = await withFake(t, startFakeAnthropic({ replies: [{ text: "First answer." }] }));
    const dir = tempDir(t);
    let seen = "";
    const { child, result } = harness(["run", "--cwd", dir, "--model", "claude-sonnet-4-6", ...STREAM], { ANTHROPIC_API_KEY: "k", ANTHROPIC_BASE_URL: fake.url }, {
      stdin: { open: true },
      onStdout: (text) => (seen = text),
    });
    t.after(() => child.kill("SIGKILL"));
    child.stdin!.write(user("What is one?"));
    while (!seen.includes('"type":"result"')) await new Promise((resolve) => setTimeout(resolve, 20));
    const stopped = performance.now();
    child.kill(signal);
    const stuck = setTimeout(() => child.kill("SIGKILL"), 5_000);
    const { code, stdout } = await result;
    clearTimeout(stuck);
    assert.equal(code, status, `${signal}: still waiting for input after ${Math.round(performance.now() - stopped)} ms`);
    assert.deepEqual(linesOf(stdout).filter((line) => line.type === "result").map((line) => line.subtype), ["success"], "the turn that ran has its result; none is made up for the wait");
  }
});

test("stream-json input: --max-budget-usd holds for the whole run, its turns together", async (t) => {
  const env = (url: string) => ({ ANTHROPIC_API_KEY: "k", ANTHROPIC_BASE_URL: url });
  const dir = tempDir(t);
  // What one model call costs here (a few cents: the request's prompt and tools, which change as
  // the harness does), measured; a budget of two and a half calls is reached by three turns of one
  // call each: the fourth message is answered with the budget's result, and no model call, and the
  // run ends.
  const probe = await withFake(t, startFakeAnthropic({ replies: [{ text: "A." }] }));
  const one = await harness(["run", "--cwd", dir, "--model", "claude-sonnet-4-6", "--output-format", "json", "one"], env(probe.url)).result;
  const perCall = (JSON.parse(one.stdout) as { total_cost_usd: number }).total_cost_usd;
  const budget = (Math.ceil(perCall * 2500) / 1000).toString();
  const fake = await withFake(t, startFakeAnthropic({ replies: [{ text: "A." }, { text: "B." }, { text: "C." }, { text: "D." }, { text: "E." }] }));
  const spent = await harness(["run", "--cwd", dir, "--model", "claude-sonnet-4-6", "--max-budget-usd", budget, ...STREAM], env(fake.url), {
    stdin: user("one") + user("two") + user("three") + user("four") + user("five"),
  }).result;
  assert.equal(spent.code, 1, spent.stderr);
  const results = linesOf(spent.stdout).filter((line) => line.type === "result");
  assert.deepEqual(results.map((r) => r.subtype), ["success", "success", "success", "error_max_budget_usd"], `one call costs $${perCall}, the budget is $${budget}`);
  assert.ok(String(results[3]!.error).includes(`budget of $${budget}`), String(results[3]!.error));
  assert.equal(fake.requests.length, 3, "no model call once the budget is spent");

  // A turn that reaches it with its own calls and the turns' before it stops there, as a run does.
  const inTurn = await withFake(t, startFakeAnthropic({ replies: [{ text: "A." }, { toolUses: [{ name: "Bash", input: { command: "echo hi" } }] }, { text: "never" }, { text: "never" }] }));
  const reached = await harness(["run", "--cwd", tempDir(t), "--model", "claude-sonnet-4-6", "--permission-mode", "bypassPermissions", "--max-budget-usd", "0.04", ...STREAM], env(inTurn.url), {
    stdin: user("one") + user("two") + user("three"),
  }).result;
  assert.equal(reached.code, 1, reached.stderr);
  const ends = linesOf(reached.stdout).filter((line) => line.type === "result");
  assert.deepEqual(ends.map((r) => r.subtype), ["success", "error_max_budget_usd"]);
  assert.match(String(ends[1]!.error), /\$0\.04\b/);
  assert.equal(inTurn.requests.length, 2);
});
