// `harness "prompt" --verbose` and `harness chat --verbose`, as claude's interactive --verbose: tool
// calls and their output shown whole instead of as a short excerpt.
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startFakeAnthropic, toolThenText } from "@harness/test-utils";
import { parseArgs } from "../../args.ts";
import { harness, withFake } from "../../test-support.ts";

const LONG = `${"x".repeat(150)} end-of-command`;
const COMMAND = `seq 1 12 # ${LONG}`;

test("--verbose in a chat shows a tool call's input and its output whole; without it, an excerpt", async (t) => {
  const fake = await withFake(t, startFakeAnthropic());
  const dir = (prefix: string) => {
    const path = mkdtempSync(join(tmpdir(), prefix));
    t.after(() => rmSync(path, { recursive: true, force: true }));
    return path;
  };
  const [home, project] = [dir("harness-verbose-home-"), dir("harness-verbose-project-")];
  const env = { HOME: home, ANTHROPIC_API_KEY: "k", ANTHROPIC_BASE_URL: fake.url, HARNESS_USER: "me" };
  const chat = (args: string[]) => {
    fake.push(...toolThenText("Bash", { command: COMMAND }, "Counted."));
    return harness([...args, "--dangerously-skip-permissions", "count"], env, { cwd: project, stdin: "" }).result;
  };

  const short = await chat([]);
  assert.equal(short.code, 0, short.stderr);
  assert.match(short.stderr, /… \+8 lines/);
  assert.doesNotMatch(short.stderr, /end-of-command/);

  for (const args of [["--verbose"], ["chat", "--local", "--verbose"]]) {
    const full = await chat(args);
    assert.equal(full.code, 0, full.stderr);
    assert.equal(full.stdout, "Counted.\n");
    assert.match(full.stderr, /Bash\(seq 1 12 # x+ end-of-command\)/, "the whole input");
    assert.match(full.stderr, /⎿ {2}1\n(?: {5}\d+\n){10} {5}12\n/, "every line of the output");
    assert.doesNotMatch(full.stderr, /\+\d+ lines|not one a chat can take/);
  }
});

test("--verbose is a chat's flag: parsed for the top level and harness chat, with no value", () => {
  const top = parseArgs(["--verbose", "hi"]);
  assert.equal(top.kind === "chat" && top.verbose, true);
  assert.equal(top.kind === "chat" && top.prompt, "hi");
  const chat = parseArgs(["chat", "--verbose"]);
  assert.equal(chat.kind === "chat" && chat.verbose, true);
  assert.deepEqual(parseArgs(["chat", "--verbose=yes"]), { kind: "usage-error", message: "--verbose takes no value", topic: "chat" });
});
