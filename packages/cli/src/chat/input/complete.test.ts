// Tab in `harness chat`: what the completer makes of the line before the cursor.
import { test } from "node:test";
import assert from "node:assert/strict";
import { chmodSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { completions, createCompleter, listed } from "./complete.ts";
import { completePath, FUZZY_CANDIDATES, WALK_LIMIT } from "./complete-paths.ts";

function project(t: { after(fn: () => unknown): void }, files: string[]): string {
  const root = mkdtempSync(join(tmpdir(), "harness-complete-"));
  t.after(() => rmSync(root, { recursive: true, force: true }));
  for (const file of files) {
    const at = join(root, file);
    if (file.endsWith("/")) mkdirSync(at, { recursive: true });
    else {
      mkdirSync(join(at, ".."), { recursive: true });
      writeFileSync(at, "x");
    }
  }
  return root;
}

const commands = async () => ["help", "hooks", "compact", "clear", "context", "cost", "deploy", "release:notes", "release:draft", "quit", "mode"];

/** What Tab makes of `line`: readline's [completions, the part they replace]. */
function tab(line: string, cwd: string, listedTo: string[][] = []): Promise<[string[], string]> {
  const completer = createCompleter({ commands, cwd }, (candidates) => listedTo.push([...candidates]));
  return new Promise((resolve, reject) => completer(line, (error, result) => (error ? reject(error) : resolve(result!))));
}

test("after / at the start of the line, Tab completes a command the session can run, with a space after it", async (t) => {
  const cwd = project(t, []);
  assert.deepEqual(await tab("/hel", cwd), [["/help "], "/hel"]);
  assert.deepEqual(await tab("/q", cwd), [["/quit "], "/q"]);
  // Several: their common part, and a Tab that adds nothing lists them.
  const lists: string[][] = [];
  assert.deepEqual(await tab("/rel", cwd, lists), [["/release:draft", "/release:notes"], "/rel"]);
  assert.deepEqual(lists, []);
  assert.deepEqual(await tab("/release:", cwd, lists), [[], "/release:"]);
  assert.deepEqual(await tab("/c", cwd, lists), [[], "/c"]);
  assert.deepEqual(lists, [["/release:draft", "/release:notes"], ["/clear", "/compact", "/context", "/cost"]]);
  // Not at the start of the line, or with nothing that matches: nothing.
  assert.deepEqual(await tab("say /hel", cwd), [[], ""]);
  assert.deepEqual(await tab("/nothing", cwd), [[], "/nothing"]);
  assert.deepEqual(await tab("/help me", cwd), [[], ""]);
});

test("a Tab the caller says to skip (Shift+Tab, which the editor takes for one) does nothing", async (t) => {
  const cwd = project(t, []);
  const lists: string[][] = [];
  const completer = createCompleter({ commands, cwd }, (candidates) => lists.push([...candidates]), () => true);
  for (const line of ["/hel", "/c"]) assert.deepEqual(await new Promise((resolve) => completer(line, (_error, result) => resolve(result))), [[], line]);
  assert.deepEqual(lists, []);
});

test("Tab on an @word completes a path of the project: the common part, folders with a /", async (t) => {
  const cwd = project(t, ["packages/cli/src/chat.ts", "packages/agent/", "package.json", "README.md", "src/chat.ts", "src/chat-line.ts"]);
  assert.deepEqual(await tab("look at @pack", cwd), [["@package.json", "@packages/"], "@pack"]);
  assert.deepEqual(await tab("look at @packages", cwd), [["@packages/"], "@packages"]);
  assert.deepEqual(await tab("@packages/c", cwd), [["@packages/cli/"], "@packages/c"]);
  assert.deepEqual(await tab("@packages/cli/src/ch", cwd), [["@packages/cli/src/chat.ts "], "@packages/cli/src/ch"]);
  assert.deepEqual(await tab("@READ", cwd), [["@README.md "], "@READ"]);
  const lists: string[][] = [];
  assert.deepEqual(await tab("@packages/", cwd, lists), [[], "@packages/"]);
  assert.deepEqual(lists, [["@packages/agent/", "@packages/cli/"]]);
  // A slash command line completes paths too, past its name.
  assert.deepEqual(await tab("/review @READ", cwd), [["@README.md "], "@READ"]);
});

test("with no path starting with what is typed, the typed characters in order find one anywhere below", async (t) => {
  const cwd = project(t, ["src/chat.ts", "src/chat-line.ts", "docs/guide.md", "node_modules/srcchat/index.js", ".git/srcchat"]);
  assert.deepEqual(await tab("@srcchat", cwd), [["@src/chat.ts", "@src/chat-line.ts"], "@srcchat"]);
  assert.deepEqual(await tab("@guide", cwd), [["@docs/guide.md "], "@guide"]);
  assert.deepEqual(await tab("@SRCLINE", cwd), [["@src/chat-line.ts "], "@SRCLINE"], "case is not minded");
  assert.deepEqual(await tab("@zzz", cwd), [[], "@zzz"]);
});

test("hidden files come only when what is typed starts with a dot; node_modules and .git only when named", async (t) => {
  const cwd = project(t, [".env", ".github/workflows/ci.yml", "node_modules/x/index.js", ".git/HEAD", "notes.txt"]);
  assert.deepEqual(await tab("@n", cwd), [["@notes.txt "], "@n"]);
  assert.deepEqual(await tab("@.e", cwd), [["@.env "], "@.e"]);
  assert.deepEqual(await tab("@.gith", cwd), [["@.github/"], "@.gith"]);
  assert.deepEqual((await completions("@.", { commands, cwd })).candidates, ["@.env", "@.github/"]);
  assert.deepEqual(await tab("@node_modules", cwd), [["@node_modules/"], "@node_modules"]);
  const lists: string[][] = [];
  assert.deepEqual(await tab("@.git", cwd, lists), [[], "@.git"]);
  assert.deepEqual(lists, [["@.git/", "@.github/"]]);
  assert.deepEqual(await tab("@node_modules/x/i", cwd), [["@node_modules/x/index.js "], "@node_modules/x/i"]);
  assert.deepEqual(await tab("@ci", cwd), [[], "@ci"], "the fuzzy search leaves hidden folders out");
});

test("a path with spaces is completed as the chat's @-references read it, its spaces behind a backslash", async (t) => {
  const cwd = project(t, ["my notes/todo list.md", "back\\slash.txt"]);
  assert.deepEqual(await tab("@my", cwd), [["@my\\ notes/"], "@my"]);
  assert.deepEqual(await tab("@my\\ notes/to", cwd), [["@my\\ notes/todo\\ list.md "], "@my\\ notes/to"]);
  assert.deepEqual(await tab("@back", cwd), [[], "@back"], "a name the reading cannot take is not offered");
});

test("the fuzzy search stops after a bounded walk and a bounded number of candidates", async (t) => {
  const many = Array.from({ length: 120 }, (_, i) => `many/file-${String(i).padStart(3, "0")}.ts`);
  const cwd = project(t, many);
  const found = (await completions("@manyfile", { commands, cwd })).candidates;
  assert.equal(found.length, FUZZY_CANDIDATES);
  // Deep below more entries than the walk reads, a match is not found.
  const wide = project(t, [...Array.from({ length: WALK_LIMIT + 10 }, (_, i) => `a/f${i}`), "z/target.md"]);
  assert.deepEqual((await completions("@target", { commands, cwd: wide })).candidates, []);
});

test("a folder that cannot be read completes to nothing, and the rest still does", async (t) => {
  const cwd = project(t, ["locked/secret.txt", "open/readme.md"]);
  // Root reads any folder: there, one that is a link to itself cannot be read.
  if (process.getuid?.() === 0) {
    rmSync(join(cwd, "locked"), { recursive: true });
    symlinkSync("locked", join(cwd, "locked"));
  } else {
    chmodSync(join(cwd, "locked"), 0);
    t.after(() => chmodSync(join(cwd, "locked"), 0o755));
  }
  assert.deepEqual(await tab("@locked/s", cwd), [[], "@locked/s"]);
  assert.deepEqual(await tab("@readme", cwd), [["@open/readme.md "], "@readme"]);
  assert.deepEqual(await tab("@missing/x", cwd), [[], "@missing/x"]);
});

test("the candidates are listed in columns that fit the terminal, and a long list is cut", () => {
  assert.equal(listed(["/clear", "/compact", "/context", "/cost"], 40), "/clear    /compact  /context  /cost");
  assert.equal(listed(["/clear", "/compact", "/context", "/cost"], 20), "/clear    /context\n/compact  /cost");
  const long = listed(Array.from({ length: 80 }, (_, i) => `@f${i}`), 200);
  assert.match(long, /@f49\b/);
  assert.doesNotMatch(long, /@f50\b/);
  assert.match(long, /… and 30 more$/);
});

test("in a folder of more entries than the walk reads, a name typed from its start is found all the same", async (t) => {
  // Made last first: wherever the folder's listing puts them, the walk's share may well miss them.
  const names = Array.from({ length: 3 * WALK_LIMIT }, (_, i) => `f${String(i).padStart(5, "0")}`).reverse();
  const cwd = project(t, names.map((name) => `big/${name}`));
  const lists: string[][] = [];
  assert.deepEqual(await tab(`@big/f1499`, cwd, lists), [[], "@big/f1499"]);
  assert.deepEqual(lists, [names.slice(0, 10).reverse().map((name) => `@big/${name}`)]);
});

test("a name the agent would not take for a mention as it stands is completed in a form it takes, or not offered", async (t) => {
  const cwd = project(t, ["äpfel.md", "(draft).md", "~tilde.txt", "done!", "v1.)/notes.md", "it's here.md"]);
  // A mention of a bare name starts with a letter, a digit or one of ._-: other names go behind ./
  assert.deepEqual(await tab("@äp", cwd), [["@./äpfel.md "], "@äp"]);
  assert.deepEqual(await tab("@(dr", cwd), [["@./(draft).md "], "@(dr"]);
  assert.deepEqual(await tab("@~ti", cwd), [["@./~tilde.txt "], "@~ti"]);
  assert.deepEqual(await tab("@./äp", cwd), [["@./äpfel.md "], "@./äp"]);
  assert.deepEqual(await tab("@pfel", cwd), [["@./äpfel.md "], "@pfel"], "the fuzzy search's too");
  // A file whose name ends in sentence punctuation would be read without it: not offered. A
  // folder's does not end the path.
  assert.deepEqual(await tab("@done", cwd), [[], "@done"]);
  assert.deepEqual(await tab("@v1", cwd), [["@v1.)/"], "@v1"]);
  assert.deepEqual(await tab("@it", cwd), [["@it's\\ here.md "], "@it"]);
});

test("a Tab whose candidates take too long to find answers nothing rather than hold the keys typed after it", async (t) => {
  const cwd = project(t, []);
  const stuck = createCompleter({ commands: () => new Promise(() => {}), cwd }, () => assert.fail("nothing is listed"), () => false, 100);
  const started = Date.now();
  const result = await new Promise((resolve) => stuck("/he", (_error, answer) => resolve(answer)));
  assert.deepEqual(result, [[], "/he"]);
  assert.ok(Date.now() - started < 1_000, `answered after ${Date.now() - started} ms`);
});

test("a name with control characters (a terminal's escape sequences) is never offered, so never written to the terminal", async (t) => {
  const cwd = project(t, ["q\x1b]52;c;ZXZpbA==\x07.md", "w\x1b[2J/inner.md", "z\x9b31m.md", "plain.md"]);
  assert.deepEqual(await tab("@q", cwd), [[], "@q"]);
  assert.deepEqual(await tab("@w", cwd), [[], "@w"]);
  assert.deepEqual(await tab("@z", cwd), [[], "@z"]);
  assert.deepEqual(await tab("@inner", cwd), [[], "@inner"], "nor a path below such a folder");
  assert.deepEqual((await completions("@", { commands, cwd })).candidates, ["@plain.md"]);
});

test("a Tab whose candidates cannot be found answers nothing, rather than an error the line editor would print into the typed line", async (t) => {
  const cwd = project(t, []);
  const failing = createCompleter({ commands: () => Promise.reject(new Error("the agent's modules would not load")), cwd }, () => assert.fail("nothing is listed"));
  const result = await new Promise((resolve) => failing("/he", (error, answer) => resolve(error ?? answer)));
  assert.deepEqual(result, [[], "/he"]);
});

test("a search of the paths given up on (its signal aborted) stops and answers nothing", async (t) => {
  const cwd = project(t, ["links/", ...Array.from({ length: 50 }, (_, i) => `src/file-${i}.ts`)]);
  for (let i = 0; i < 200; i++) symlinkSync(join(cwd, "src"), join(cwd, "links", `l${i}`));
  assert.equal((await completePath("links/l", cwd)).length, 200);
  const stopped = new AbortController();
  stopped.abort();
  assert.deepEqual(await completePath("links/l", cwd, undefined, stopped.signal), []);
  assert.deepEqual(await completePath("srcfile", cwd, undefined, stopped.signal), []);
});

test("a Tab at the end of a long pasted line answers at once: only its last word is looked at", async (t) => {
  const cwd = project(t, ["README.md"]);
  const pasted = `${"@a\\ ".repeat(40_000)}x`;
  const started = Date.now();
  assert.deepEqual(await tab(`${pasted} @READ`, cwd), [["@README.md "], "@READ"]);
  assert.deepEqual((await tab(`${pasted}@READ`, cwd))[0], [], "an @ inside a word (of escaped spaces, longer than any path) offers nothing");
  assert.ok(Date.now() - started < 1_000, `answered after ${Date.now() - started} ms`);
});

test("a chat not of its own completes an @word from the session's files on the server, never from its own directory", async (t) => {
  const cwd = project(t, ["local.md", "src/here.ts"]);
  const asked: string[] = [];
  const files = async (prefix: string) => (asked.push(prefix), ["src/", "src dir/", "src/x,", "srv.md"].filter((path) => path.startsWith(prefix)));
  const sources = { commands, cwd, files };
  assert.deepEqual(await completions("see @sr", sources), { candidates: ["@src/", "@src\\ dir/", "@srv.md"], word: "@sr" });
  assert.deepEqual(await completions("see @src\\ d", sources), { candidates: ["@src\\ dir/"], word: "@src\\ d" });
  assert.deepEqual(await completions("see @loc", sources), { candidates: [], word: "@loc" });
  assert.deepEqual(await completions("see @~/", sources), { candidates: [], word: "@~/" }, "the server's home is not the chat's");
  assert.deepEqual(asked, ["sr", "src d", "loc"]);
  const failing = { commands, cwd, files: async () => Promise.reject(new Error("GET /sessions/s/files answered 404")) };
  assert.deepEqual(await completions("see @loc", failing), { candidates: [], word: "@loc" }, "an error is nothing, not the local directory");
});
