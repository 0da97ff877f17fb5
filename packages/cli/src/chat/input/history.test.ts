// The prompts typed into `harness chat` at a terminal, kept per project in the user's
// configuration directory (history.jsonl, as Claude Code keeps its own).
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { once } from "node:events";
import fs, { appendFileSync, mkdirSync, readFileSync, statSync, truncateSync, writeFileSync } from "node:fs";
import { syncBuiltinESMExports } from "node:module";
import { join } from "node:path";
import { appendHistory, historyFile, loadHistory, HISTORY_CAP, TAIL_BYTES } from "./history.ts";
import type { HarnessState } from "@harness/protocol";
import { openRecall } from "./recall.ts";
import { tempDir } from "../../test-support.ts";

test("the history file is history.jsonl in the user's configuration directory", () => {
  assert.equal(historyFile("/home/ada", {}), "/home/ada/.claude/history.jsonl");
  assert.equal(historyFile("/home/ada", { CLAUDE_CONFIG_DIR: "/etc/claude" }), "/etc/claude/history.jsonl");
});

test("prompts appended come back most recent first, for their project only, whole when multi-line", (t) => {
  const file = join(tempDir(t), "history.jsonl");
  assert.deepEqual(loadHistory(file, "/p"), { entries: [] }, "no file yet: no history, no warning");
  appendHistory(file, "/p", "first");
  appendHistory(file, "/elsewhere", "not here");
  appendHistory(file, "/p", "second\nwith a second line");
  assert.deepEqual(loadHistory(file, "/p"), { entries: ["second\nwith a second line", "first"] });
  assert.deepEqual(loadHistory(file, "/elsewhere").entries, ["not here"]);
  assert.equal(statSync(file).mode & 0o777, 0o600, "prompts may hold secrets");
  const line = JSON.parse(readFileSync(file, "utf8").split("\n")[0]);
  assert.equal(line.display, "first");
  assert.equal(line.project, "/p");
  assert.equal(typeof line.timestamp, "number");
});

test("the same prompt entered again in a row is kept once; the history holds the latest HISTORY_CAP", (t) => {
  const file = join(tempDir(t), "history.jsonl");
  const lines = Array.from({ length: HISTORY_CAP + 5 }, (_, i) => JSON.stringify({ display: `p${i}`, pastedContents: {}, timestamp: i, project: "/p" }));
  writeFileSync(file, `${lines.join("\n")}\n`);
  appendHistory(file, "/p", "again");
  appendHistory(file, "/p", "again");
  const { entries } = loadHistory(file, "/p");
  assert.equal(entries.length, HISTORY_CAP);
  assert.deepEqual(entries.slice(0, 3), ["again", `p${HISTORY_CAP + 4}`, `p${HISTORY_CAP + 3}`]);
  assert.equal(entries.at(-1), "p6");
});

test("a damaged line is skipped with one warning; a file that is not a history is left alone", (t) => {
  const dir = tempDir(t);
  const file = join(dir, "history.jsonl");
  writeFileSync(file, `${JSON.stringify({ display: "kept", project: "/p", timestamp: 1 })}\n{"display": "torn\n[1,2]\n`);
  const loaded = loadHistory(file, "/p");
  assert.deepEqual(loaded.entries, ["kept"]);
  assert.match(loaded.warning ?? "", /history\.jsonl: 2 lines are not prompts of the history; skipped/);

  const foreign = join(dir, "foreign.jsonl");
  writeFileSync(foreign, "\x00\x01 binary garbage\n");
  const other = loadHistory(foreign, "/p");
  assert.deepEqual(other.entries, []);
  assert.match(other.warning ?? "", /foreign\.jsonl is not a prompt history \(not JSON lines\); the chat neither reads nor writes it/);
  assert.equal(appendHistory(foreign, "/p", "secret", other), undefined);
  assert.equal(readFileSync(foreign, "utf8"), "\x00\x01 binary garbage\n", "nothing was written into it");

  const directory = join(dir, "a-directory");
  mkdirSync(directory);
  assert.match(loadHistory(directory, "/p").warning ?? "", /cannot read .*a-directory/);
  assert.match(appendHistory(join(file, "x.jsonl"), "/p", "x") ?? "", /cannot keep the prompt in .*x\.jsonl/);
});

test("chats appending at the same time lose none of each other's prompts", async (t) => {
  const file = join(tempDir(t), "history.jsonl");
  const script = `import { appendHistory } from ${JSON.stringify(new URL("./history.ts", import.meta.url).href)};
for (let i = 0; i < 200; i++) appendHistory(process.argv[1], "/p", process.argv[2] + i + " " + "x".repeat(2000));`;
  const children = ["a", "b", "c"].map((name) => spawn(process.execPath, ["--input-type=module", "-e", script, file, name], { stdio: "inherit" }));
  await Promise.all(children.map((child) => once(child, "close")));
  const { entries, warning } = loadHistory(file, "/p", 1000);
  assert.equal(warning, undefined);
  assert.equal(entries.length, 600);
  for (const name of ["a", "b", "c"]) assert.equal(entries.filter((e) => e.startsWith(name)).length, 200);
});

test("answers to a call waiting for approval are not kept: y and n, and a plan's 1, 2 or 3", (t) => {
  const file = join(tempDir(t), "history.jsonl");
  const recall = openRecall(file, "/p", () => {});
  const waiting = { status: "awaiting-approval", messages: [], pendingApprovals: [{ toolCallId: "t1", toolName: "ExitPlanMode", description: "plan" }] } as HarnessState;
  for (const answer of ["y", "no not that", "1", "2", "3 keep the tests"]) recall.entered(answer, waiting);
  recall.entered("1", undefined);
  recall.entered("add the tests", waiting);
  assert.deepEqual(loadHistory(file, "/p").entries, ["add the tests", "1"], "with nothing waiting, 1 is a prompt like any other");
});

test("a history of gigabytes is read from its end: the project's latest prompts come back at once", (t) => {
  const file = join(tempDir(t), "history.jsonl");
  // 3 GB of an old, torn history (sparse: no disk taken), then this project's prompts.
  writeFileSync(file, "");
  truncateSync(file, 3 * 1024 ** 3);
  const tail = ["first", "second"].map((display, i) => JSON.stringify({ display, pastedContents: {}, timestamp: i, project: "/p" }));
  appendFileSync(file, `\n${tail.join("\n")}\n`);
  // Every read of the file counted: fs's own readSync replaced, and the replacement given to the
  // modules that imported it by name.
  let read = 0;
  const original = fs.readSync;
  const reads = t.mock.method(fs, "readSync", (...args: Parameters<typeof fs.readSync>) => {
    const bytes = original(...args);
    read += bytes;
    return bytes;
  });
  syncBuiltinESMExports();
  let loaded;
  try {
    loaded = loadHistory(file, "/p");
  } finally {
    reads.mock.restore();
    syncBuiltinESMExports();
  }
  assert.deepEqual(loaded, { entries: ["second", "first"] }, "no warning: what lies before the part read is not looked at");
  assert.ok(read > 0 && read <= TAIL_BYTES, `${read} bytes read of ${statSync(file).size}`);
  assert.equal(appendHistory(file, "/p", "third"), undefined);
  assert.deepEqual(loadHistory(file, "/p").entries, ["third", "second", "first"]);
});

test("a prompt of the file holding escape sequences or control characters is recalled without them", (t) => {
  const file = join(tempDir(t), "history.jsonl");
  const hostile = ["clear\x1b[2J\x1b[Hthe screen", "title\x1b]0;pwned\x07 set", "bell\x07\x9b31m red\r\nline two\ttabbed"];
  writeFileSync(file, hostile.map((display) => `${JSON.stringify({ display, project: "/p", timestamp: 1 })}\n`).join(""));
  assert.deepEqual(loadHistory(file, "/p").entries, ["bell31m red\nline two\ttabbed", "title]0;pwned set", "clear[2J[Hthe screen"]);
  const recall = openRecall(file, "/p", () => {});
  for (const kept of recall.history) assert.doesNotMatch(kept, /[\x00-\x08\x0b\x0c\x0e-\x1f\x7f\x9b]/);
  assert.deepEqual(recall.history[0].split("\r"), ["line two\ttabbed", "bell31m red"], "the lines of a prompt stay apart");
});

test("Claude Code's prompts with pasted text come back as shown, placeholders and all, their texts apart; an image's, and one without its text, stay as text", (t) => {
  const file = join(tempDir(t), "history.jsonl");
  const pasted = {
    "1": { id: 1, type: "text", content: "error: boom\n  at main.ts:3\n  at run.ts:9" },
    "2": { id: 2, type: "image", content: "iVBORw0KGgo=", mediaType: "image/png" },
    "3": { id: 3, type: "text", content: "one line\x1b[2J" },
  };
  const lines = [
    { display: "explain [Pasted text #1 +2 lines] and [Image #2], then [Pasted text #3] [Pasted text #4 +1 lines]", pastedContents: pasted, timestamp: 1, project: "/p" },
    { display: "odd [Pasted text #1 +2 lines]", pastedContents: "not an object", timestamp: 2, project: "/p" },
    { display: "held [Pasted text #1]", pastedContents: { "1": { id: 1, type: "text", contentHash: "abc" } }, timestamp: 3, project: "/p" },
  ];
  writeFileSync(file, lines.map((line) => `${JSON.stringify(line)}\n`).join(""));
  const { entries, warning } = loadHistory(file, "/p");
  assert.equal(warning, undefined);
  assert.deepEqual(entries, ["held [Pasted text #1]", "odd [Pasted text #1 +2 lines]", "explain [Pasted text #1 +2 lines] and [Image #2], then [Pasted text #3] [Pasted text #4 +1 lines]"]);
  assert.deepEqual(loadHistory(file, "/p").pastes, {
    2: [
      { id: 1, placeholder: "[Pasted text #1 +2 lines]", content: "error: boom\n  at main.ts:3\n  at run.ts:9" },
      { id: 3, placeholder: "[Pasted text #3]", content: "one line[2J" },
    ],
  });
});

test("a prompt entered with a paste is recalled as its display, its paste apart; the same display with another text is another prompt", (t) => {
  const file = join(tempDir(t), "history.jsonl");
  const recall = openRecall(file, "/p", () => {});
  const kept = (content: string) => ({ display: "see [Pasted text #1 +3 lines]", pastedContents: { 1: { id: 1, type: "text" as const, content } } });
  recall.entered("see a\nb\nc\nd", undefined, kept("a\nb\nc\nd"));
  recall.entered("see e\nf\ng\nh", undefined, kept("e\nf\ng\nh"));
  recall.entered("see e\nf\ng\nh", undefined, kept("e\nf\ng\nh"));
  recall.entered("plain", undefined, { display: "plain", pastedContents: {} });
  assert.equal(recall.pastesAt(0), undefined);
  assert.deepEqual(recall.pastesAt(1), [{ id: 1, placeholder: "[Pasted text #1 +3 lines]", content: "e\nf\ng\nh" }]);
  assert.deepEqual(recall.pastesAt(2), [{ id: 1, placeholder: "[Pasted text #1 +3 lines]", content: "a\nb\nc\nd" }]);
  assert.equal(recall.pastesAt(3), undefined);
  const again = openRecall(file, "/p", () => {});
  assert.deepEqual(again.history, ["plain", "see [Pasted text #1 +3 lines]", "see [Pasted text #1 +3 lines]"], "a later chat recalls the same");
  for (const i of [0, 1, 2, 3]) assert.deepEqual(again.pastesAt(i), recall.pastesAt(i));
});

test("prompts of every length and script come back whole, wherever the file's reading splits them", (t) => {
  const file = join(tempDir(t), "history.jsonl");
  const displays = Array.from({ length: 3000 }, (_, i) => `${i} ${"é漢😀 ".repeat((i * 37) % 400)}`);
  const lines = displays.map((display, i) => JSON.stringify({ display, pastedContents: {}, timestamp: i, project: i % 3 ? "/p" : "/q" }));
  writeFileSync(file, `\n${lines.join("\n")}`);
  const expected = displays.filter((_, i) => i % 3).reverse();
  assert.deepEqual(loadHistory(file, "/p", 5000), { entries: expected });
  assert.deepEqual(loadHistory(file, "/p", 10).entries, expected.slice(0, 10));
});
