// A reply's markdown at a terminal with colour on, as Claude Code shows it: headings without their
// #s, bold, nested emphasis, code blocks without their fences and coloured by their language, tables
// ruled (with or without outer pipes), quotes and nested lists; `harness run` at a terminal as well.
import { test } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { bin, fakeModelForFile, leaveChat } from "../../test-support.ts";
import { inTerminal } from "../../test-screen.ts";

const model = fakeModelForFile();

/** The reply, cut into chunks mid-marker, mid-line and mid-table as a model streams it. */
const REPLY = ["# Res", "ults\n\nThe **fix", "** is in `src/a.ts`:\n\n```ts\nconst x = 1;\n``", "`\n\n| Name | Size |\n|---", "|--:|\n| a | 1", "0 |\n\nDone."];
const SHOWN = [
  "Results",
  "",
  "The fix is in src/a.ts:",
  "",
  "  const x = 1;",
  "",
  "┌──────┬──────┐",
  "│ Name │ Size │",
  "├──────┼──────┤",
  "│ a    │   10 │",
  "└──────┴──────┘",
  "",
  "Done.",
];

/** `args` of the CLI in a terminal of its own, in a project of its own, colours on. */
function terminal(t: { after(fn: () => unknown): void }, args: string) {
  const home = model.dir("harness-markdown-home-");
  const project = model.dir("harness-markdown-project-");
  const env: NodeJS.ProcessEnv = { ...process.env, TERM: "xterm", HOME: home, ANTHROPIC_API_KEY: "test-key", ANTHROPIC_BASE_URL: model.fake.url, HARNESS_USER: "me", HARNESS_BUNDLE: "0" };
  delete env.NO_COLOR;
  return inTerminal(t, `exec bash ${JSON.stringify(bin)} ${args}`, { cwd: project, env, columns: 80 });
}

/** `raw` with a style closed and opened again at once (`\x1b[1mRes\x1b[0m\x1b[1mults`) made one run. */
function joinedRuns(raw: string): string {
  let joined = raw;
  for (let before = ""; before !== joined; ) {
    before = joined;
    joined = joined.replace(/(\x1b\[([\d;]+)m)([^\x1b]*)\x1b\[0m\1/g, "$1$3");
  }
  return joined;
}

test("a chat at a terminal shows the reply's markdown rendered: heading, bold, code block and table", async (t) => {
  model.fake.push({ text: REPLY });
  const chat = terminal(t, "chat --local");
  await chat.sees(/Ctrl\+D leaves/);
  chat.type("show me\r");
  await chat.shows(/^Done\.$/m);
  const rows = chat.rows();
  const from = rows.indexOf("Results");
  assert.deepEqual(rows.slice(from, from + SHOWN.length), SHOWN, rows.join("\n"));
  // Text that came in several deltas is printed in as many pieces, each closing its style: one
  // style run here, as the terminal shows it.
  const screen = joinedRuns(chat.screen());
  assert.match(screen, /\x1b\[1mfix\x1b\[0m/, "bold");
  assert.match(screen, /\x1b\[1;4mResults\x1b\[0m/, "the heading");
  assert.match(screen, /\x1b\[35mconst\x1b\[0m/, "a keyword of the ts code block in its colour");
  await leaveChat(chat);
});

test("harness run at a terminal renders the reply's markdown the same way", async (t) => {
  model.fake.push({ text: REPLY });
  const run = terminal(t, "run --permission-mode bypassPermissions 'show me'");
  assert.equal(await run.closed, 0, run.screen());
  const rows = run.rows();
  const from = rows.indexOf("Results");
  assert.deepEqual(rows.slice(from, from + SHOWN.length), SHOWN, rows.join("\n"));
});

test("harness run at a terminal shows quotes with lazy lines, nested and numbered lists and indented code", async (t) => {
  model.fake.push({ text: ["Steps:\n\n3. first\n", "4. second\n  - nested", " detail\n\n> quoted\nlazy line\n> > deeper\n\n    indented code\n", "\n1. one\n\n1. two\n\nDone."] });
  const run = terminal(t, "run --permission-mode bypassPermissions 'show me'");
  assert.equal(await run.closed, 0, run.screen());
  const rows = run.rows();
  const from = rows.indexOf("Steps:");
  const shown = ["Steps:", "", "3. first", "4. second", "   • nested detail", "", "│ quoted", "│ lazy line", "│ │ deeper", "", "  indented code", "", "1. one", "", "2. two", "", "Done."];
  assert.deepEqual(rows.slice(from, from + shown.length), shown, rows.join("\n"));
});

test("harness run at a terminal shows a table without outer pipes, items opened on a fence or a table, and nested emphasis", async (t) => {
  model.fake.push({ text: ["Compare:\n\nName | Size\n--", "- | --:\na | 1", "0\n\n- ```sh\n  echo hi\n  ```\n- | x |\n  |-", "--|\n\n*a **b** c* and *a *", "b* c*\nDone."] });
  const run = terminal(t, "run --permission-mode bypassPermissions 'show me'");
  assert.equal(await run.closed, 0, run.screen());
  const rows = run.rows();
  const from = rows.indexOf("Compare:");
  const shown = ["Compare:", "", "┌──────┬──────┐", "│ Name │ Size │", "├──────┼──────┤", "│ a    │   10 │", "└──────┴──────┘", "", "•   echo hi", "• ┌───┐", "  │ x │", "  ├───┤", "  └───┘", "", "a b c and a b c", "Done."];
  assert.deepEqual(rows.slice(from, from + shown.length), shown, rows.join("\n"));
  const screen = joinedRuns(run.screen());
  assert.match(screen, /\x1b\[3ma \x1b\[0m\x1b\[1;3mb\x1b\[0m\x1b\[3m c\x1b\[0m and \x1b\[3ma b c\x1b\[0m/, "bold in italic, and italic in italic");
});
