// `harness run --session-id`, `--fork-session` and `--no-session-persistence`: which id a run's
// conversation is kept under, and whether it is kept at all.
import { test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { startFakeAnthropic } from "@harness/test-utils";
import { runsDir } from "./history.ts";
import { harness, tempDir, withFake } from "../test-support.ts";

const ID = "0f8fad5b-d9cb-469f-a165-70867728950e";

test("--session-id: the conversation is kept under the id given, which --resume then takes; an id already used is refused", async (t) => {
  const fake = await withFake(t, startFakeAnthropic({ replies: [{ text: "First." }, { text: "Second." }] }));
  const dir = tempDir(t);
  const home = tempDir(t);
  const env = { ANTHROPIC_API_KEY: "k", ANTHROPIC_BASE_URL: fake.url, HOME: home };
  const first = await harness(["run", "--cwd", dir, "--session-id", ID, "--output-format", "stream-json", "hi"], env).result;
  assert.equal(first.code, 0, first.stderr);
  const lines = first.stdout.trimEnd().split("\n").map((line) => JSON.parse(line) as { session_id?: string });
  assert.equal(lines[0]!.session_id, ID, "the opening line has it");
  assert.equal(lines.at(-1)!.session_id, ID);
  assert.ok(existsSync(join(runsDir(home, dir), `${ID}.json`)));

  const again = await harness(["run", "--cwd", dir, "--session-id", ID, "hi"], env).result;
  assert.equal(again.code, 1);
  assert.equal(again.stderr, `harness: --session-id: ${ID} is already in use; --resume ${ID} goes on with it\n`);
  assert.equal(fake.requests.length, 1);

  const resumed = await harness(["run", "--cwd", dir, "--resume", ID, "--output-format", "json", "go on"], env).result;
  assert.equal(resumed.code, 0, resumed.stderr);
  assert.equal(JSON.parse(resumed.stdout).session_id, ID);
});

test("--session-id takes a UUID: anything else is one line naming the flag, exit 1", async (t) => {
  const { code, stdout, stderr } = await harness(["run", "--cwd", tempDir(t), "--session-id", "my-run", "hi"], { ANTHROPIC_API_KEY: "k", HOME: tempDir(t) }).result;
  assert.equal(code, 1);
  assert.equal(stdout, "");
  assert.equal(stderr, 'harness: --session-id must be a UUID (such as 0f8fad5b-d9cb-469f-a165-70867728950e), not "my-run"\n');
});

test("--fork-session: a resumed or continued conversation goes on under a new id, the old one left as it was", async (t) => {
  const fake = await withFake(t, startFakeAnthropic({ replies: [{ text: "First." }, { text: "Forked." }, { text: "Forked again." }] }));
  const dir = tempDir(t);
  const home = tempDir(t);
  const env = { ANTHROPIC_API_KEY: "k", ANTHROPIC_BASE_URL: fake.url, HOME: home };
  const json = async (...args: string[]) => {
    const { code, stdout, stderr } = await harness(["run", "--cwd", dir, "--output-format", "json", ...args], env).result;
    assert.equal(code, 0, stderr);
    return JSON.parse(stdout) as { session_id: string };
  };
  const first = await json("hi");
  const file = join(runsDir(home, dir), `${first.session_id}.json`);
  const before = readFileSync(file, "utf8");

  const forked = await json("--resume", first.session_id, "--fork-session", "go on");
  assert.notEqual(forked.session_id, first.session_id);
  assert.equal(readFileSync(file, "utf8"), before, "the old conversation is untouched");
  const fork = JSON.parse(readFileSync(join(runsDir(home, dir), `${forked.session_id}.json`), "utf8")) as { transcript: unknown[] };
  assert.equal(fork.transcript.length, 4, "the fork holds the old conversation and the new exchange");

  // With --session-id, the fork takes that id.
  const named = await json("-c", "--fork-session", "--session-id", ID, "more");
  assert.equal(named.session_id, ID);
  assert.deepEqual((fake.requests[2]!.body.messages as unknown[]).length, 5, "it went on with the last conversation, the fork");
});

test("--fork-session needs --resume or --continue; --session-id with either needs --fork-session", async (t) => {
  const env = { ANTHROPIC_API_KEY: "k", HOME: tempDir(t) };
  const alone = await harness(["run", "--cwd", tempDir(t), "--fork-session", "hi"], env).result;
  assert.equal(alone.code, 2);
  assert.match(alone.stderr, /^harness: --fork-session goes with --resume or --continue/);
  const both = await harness(["run", "--cwd", tempDir(t), "-c", "--session-id", ID, "hi"], env).result;
  assert.equal(both.code, 2);
  assert.match(both.stderr, /^harness: --session-id with --continue or --resume needs --fork-session/);
});

test("--no-session-persistence: nothing is kept under ~/.harness/runs for the run", async (t) => {
  const fake = await withFake(t, startFakeAnthropic({ replies: [{ text: "Not kept." }] }));
  const dir = tempDir(t);
  const home = tempDir(t);
  const { code, stdout, stderr } = await harness(["run", "--cwd", dir, "--no-session-persistence", "--output-format", "json", "hi"], {
    ANTHROPIC_API_KEY: "k",
    ANTHROPIC_BASE_URL: fake.url,
    HOME: home,
  }).result;
  assert.equal(code, 0, stderr);
  assert.equal(JSON.parse(stdout).result, "Not kept.");
  assert.equal(existsSync(join(home, ".harness")), false);
});
