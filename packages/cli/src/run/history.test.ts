// `harness run --continue` / `--resume ID`: a run goes on with the conversation of an earlier one.
import { test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, readdirSync, readFileSync, symlinkSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { startFakeAnthropic } from "@harness/test-utils";
import { loadRun, runsDir, saveRun } from "./history.ts";
import { harness, tempDir, withFake } from "../test-support.ts";

/** The text of every message the model was sent in request `i`, in order. */
function sent(fake: { requests: { body: { messages: { content: unknown }[] } }[] }, i: number): string[] {
  return fake.requests[i].body.messages.map((m) =>
    typeof m.content === "string" ? m.content : (m.content as { type: string; text?: string }[]).filter((b) => b.type === "text").map((b) => b.text).join(""),
  );
}

test("--continue goes on with the last run in the directory, --resume with the one named; both keep its id", async (t) => {
  const fake = await withFake(t, startFakeAnthropic({ replies: [{ text: "The answer is 4." }, { text: "Doubled: 8." }, { text: "Something else." }, { text: "Plus one: 9." }] }));
  const dir = tempDir(t);
  const home = tempDir(t);
  const env = { ANTHROPIC_API_KEY: "k", ANTHROPIC_BASE_URL: fake.url, HOME: home };
  const run = async (...args: string[]) => {
    const { code, stdout, stderr } = await harness(["run", "--cwd", dir, "--output-format", "json", ...args], env).result;
    assert.equal(code, 0, stderr);
    return JSON.parse(stdout) as { session_id: string; result: string };
  };

  const first = await run("what is 2+2?");
  const second = await run("-c", "double it");
  assert.equal(second.session_id, first.session_id);
  assert.deepEqual(sent(fake, 1), ["what is 2+2?", "The answer is 4.", "double it"]);

  // A run that does not continue starts a conversation of its own; --resume still finds the first.
  const other = await run("something else");
  assert.notEqual(other.session_id, first.session_id);
  const third = await run("--resume", first.session_id, "add one");
  assert.equal(third.session_id, first.session_id);
  assert.deepEqual(sent(fake, 3), ["what is 2+2?", "The answer is 4.", "double it", "Doubled: 8.", "add one"]);
  assert.equal(third.result, "Plus one: 9.");
  assert.equal(readdirSync(runsDir(home, dir)).length, 2, "one file per conversation");
});

test("nothing to continue, an unknown id or a damaged file: exit 1 with a message, and the file is left as it was", async (t) => {
  const dir = tempDir(t);
  const home = tempDir(t);
  const env = { ANTHROPIC_API_KEY: "k", ANTHROPIC_BASE_URL: "http://127.0.0.1:9", HOME: home };
  const nothing = await harness(["run", "--cwd", dir, "-c", "go on"], env).result;
  assert.equal(nothing.code, 1);
  assert.equal(nothing.stderr, `harness: there is no earlier conversation in ${dir} to continue\n`);

  const unknown = await harness(["run", "--cwd", dir, "--resume", "no-such-run", "go on"], env).result;
  assert.equal(unknown.code, 1);
  assert.equal(unknown.stderr, `harness: --resume: no conversation "no-such-run" in ${dir} (none is kept there); harness run --resume without an id is not supported: -c goes on with the last one\n`);

  // An id that can be nothing but one (a session_id's shape) was no prompt taken for an id.
  const gone = await harness(["run", "--cwd", dir, "--resume", "5548a271-d5f7-4851-bbd7-515341de4e2c", "go on"], env).result;
  assert.equal(gone.code, 1);
  assert.equal(gone.stderr, `harness: --resume: no conversation "5548a271-d5f7-4851-bbd7-515341de4e2c" in ${dir} (none is kept there); -c goes on with the last one\n`);

  const fake = await withFake(t, startFakeAnthropic({ replies: [{ text: "ok" }] }));
  const made = await harness(["run", "--cwd", dir, "--output-format", "json", "hi"], { ...env, ANTHROPIC_BASE_URL: fake.url }).result;
  const id = (JSON.parse(made.stdout) as { session_id: string }).session_id;
  const file = join(runsDir(home, dir), `${id}.json`);
  const damaged = readFileSync(file, "utf8").replace('"role":"user"', '"role":"system"');
  writeFileSync(file, damaged);
  const refused = await harness(["run", "--cwd", dir, "--resume", id, "go on"], env).result;
  assert.equal(refused.code, 1);
  assert.equal(refused.stderr, `harness: ${file}: message 0 has no role user or assistant\n`);
  assert.equal(readFileSync(file, "utf8"), damaged);
  // -c does not pass over the damaged one to go on with an older conversation: it says what is wrong.
  const latest = await harness(["run", "--cwd", dir, "-c", "go on"], env).result;
  assert.equal(latest.code, 1);
  assert.equal(latest.stderr, `harness: ${file}: message 0 has no role user or assistant\n`);

  // In the JSON formats the failure is the result, on stdout.
  const json = await harness(["run", "--cwd", dir, "-c", "--output-format", "json", "go on"], env).result;
  assert.equal(json.code, 1);
  assert.equal(json.stderr, "");
  const result = JSON.parse(json.stdout) as { subtype: string; is_error: boolean; error: string; session_id?: string };
  assert.deepEqual([result.subtype, result.is_error, result.error, result.session_id], ["error_during_execution", true, `${file}: message 0 has no role user or assistant`, undefined]);
});

test("a directory whose path would make too long a name is kept under a shortened one, apart from its neighbours", () => {
  const deep = `/${"very-long-directory-name/".repeat(20)}project`;
  const a = runsDir("/home/u", deep);
  const b = runsDir("/home/u", `${deep}2`);
  assert.ok(a.split("/").at(-1)!.length <= 255, a);
  assert.notEqual(a, b);
  assert.equal(runsDir("/home/u", "/src/app"), "/home/u/.harness/runs/-src-app");
});

test("two runs that go on with one conversation at once both keep theirs: the later is kept as a new one", (t) => {
  const dir = tempDir(t);
  const cwd = "/src/app";
  const said = (text: string) => [{ role: "user" as const, content: text }];
  const id = saveRun(dir, { id: "c1", cwd, transcript: said("start") }, undefined);
  assert.equal(id, "c1");
  const a = loadRun(dir, id, cwd);
  const b = loadRun(dir, id, cwd);
  assert.ok(a.ok && b.ok);
  assert.equal(saveRun(dir, { id, cwd, transcript: said("from a") }, a.run.revision), "c1", "the first to finish writes the conversation");
  const forked = saveRun(dir, { id, cwd, transcript: said("from b") }, b.run.revision);
  assert.notEqual(forked, "c1");
  const kept = [loadRun(dir, "c1", cwd), loadRun(dir, forked, cwd)].map((r) => (r.ok ? r.run.transcript[0].content : r.message));
  assert.deepEqual(kept, ["from a", "from b"]);
  const again = loadRun(dir, "c1", cwd);
  assert.ok(again.ok);
  assert.equal(again.run.revision, 2);
});

test("a conversation's lock left by a run that died is taken over, and a write lets go of its own", (t) => {
  const dir = tempDir(t);
  const cwd = "/src/app";
  const lock = join(dir, "c1.lock");
  writeFileSync(lock, "");
  const old = new Date(Date.now() - 60_000);
  utimesSync(lock, old, old);
  assert.equal(saveRun(dir, { id: "c1", cwd, transcript: [{ role: "user", content: "hi" }] }, undefined), "c1");
  assert.equal(existsSync(lock), false, "the lock is let go of after the write");
});

test("a directory reached through a symbolic link has one history: --continue from inside it goes on with the run made with --cwd link", async (t) => {
  const fake = await withFake(t, startFakeAnthropic({ replies: [{ text: "The answer is 4." }, { text: "Doubled: 8." }, { text: "Plus one: 9." }] }));
  const dir = tempDir(t);
  const link = join(tempDir(t), "link");
  symlinkSync(dir, link);
  const env = { ANTHROPIC_API_KEY: "k", ANTHROPIC_BASE_URL: fake.url, HOME: tempDir(t) };
  const first = await harness(["run", "--cwd", link, "what is 2+2?"], env).result;
  assert.equal(first.code, 0, first.stderr);
  // The shell's working directory is where the link leads.
  const inside = await harness(["run", "-c", "double it"], env, { cwd: link }).result;
  assert.equal(inside.code, 0, inside.stderr);
  assert.deepEqual(sent(fake, 1), ["what is 2+2?", "The answer is 4.", "double it"]);
  const again = await harness(["run", "--cwd", link, "-c", "add one"], env).result;
  assert.equal(again.code, 0, again.stderr);
  assert.deepEqual(sent(fake, 2), ["what is 2+2?", "The answer is 4.", "double it", "Doubled: 8.", "add one"]);
});

test("--resume taking the prompt for an id says that no such conversation is kept, and names the ones that are, before asking for a prompt", async (t) => {
  const fake = await withFake(t, startFakeAnthropic({ replies: [{ text: "ok" }] }));
  const dir = tempDir(t);
  const env = { ANTHROPIC_API_KEY: "k", ANTHROPIC_BASE_URL: fake.url, HOME: tempDir(t) };
  const made = await harness(["run", "--cwd", dir, "--output-format", "json", "what is in this repository?"], env).result;
  const id = (JSON.parse(made.stdout) as { session_id: string }).session_id;
  const mistaken = await harness(["run", "--cwd", dir, "--resume", "hi"], env, { stdin: "" }).result;
  assert.equal(mistaken.code, 1);
  assert.equal(
    mistaken.stderr,
    `harness: --resume: no conversation "hi" in ${dir}; harness run --resume without an id is not supported: -c goes on with the last one; ids: ${id} ("what is in this repository?")\n`,
  );
  const bare = await harness(["run", "--cwd", dir, "--resume"], env, { stdin: "" }).result;
  assert.equal(bare.code, 2);
  assert.match(bare.stderr, /^harness: --resume needs the id of a conversation: harness run --resume ID "<prompt>" \(-c goes on with the last one\)/);
});
