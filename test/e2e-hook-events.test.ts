// The PermissionDenied and InstructionsLoaded hook events through `harness run`: a command hook
// that writes what it gets on stdin to a file.
import { test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { startFakeAnthropic } from "@harness/test-utils";
import { harness, tempDir, withFake } from "../packages/cli/src/test-support.ts";

type Block = { type: string; tool_use_id?: string; content?: unknown };
type Body = { messages: { content: unknown }[] };

/** The text of the tool result for `id` in the last message of a request. */
function toolResult(body: Body, id: string): string {
  const content = body.messages.at(-1)!.content as Block[];
  const result = content.find((block) => block.type === "tool_result" && block.tool_use_id === id)!;
  return typeof result.content === "string" ? result.content : JSON.stringify(result.content);
}

function logged(file: string): Record<string, unknown>[] {
  if (!existsSync(file)) return [];
  return readFileSync(file, "utf8").trim().split("\n").filter(Boolean).map((line) => JSON.parse(line) as Record<string, unknown>);
}

/** Appends the hook's input to `log` as one line, in one write: hooks of calls that run at the same
 * time may record at once. */
const record = (log: string) => `input=$(cat); printf '%s\\n' "$input" >> ${log}`;

test("PermissionDenied fires for a call refused because no one can approve it, with its input and reason; retry: true tells the model it may retry", async (t) => {
  const fake = await withFake(
    t,
    startFakeAnthropic({
      replies: [
        {
          toolUses: [
            { id: "toolu_rm", name: "Bash", input: { command: "rm -rf build" } },
            { id: "toolu_touch", name: "Bash", input: { command: "touch x" } },
            { id: "toolu_push", name: "Bash", input: { command: "git push origin main" } },
          ],
        },
        { text: "done" },
      ],
    }),
  );
  const dir = tempDir(t);
  const log = join(dir, "denied.log");
  const all = join(dir, "all.log");
  mkdirSync(join(dir, ".claude"));
  const retry = `echo '{"hookSpecificOutput":{"hookEventName":"PermissionDenied","retry":true}}'`;
  writeFileSync(
    join(dir, ".claude", "settings.json"),
    JSON.stringify({
      permissions: { deny: ["Bash(git push *)"] },
      hooks: {
        PermissionDenied: [
          { matcher: "Bash", hooks: [{ type: "command", if: "Bash(rm *)", command: `${record(log)}; ${retry}` }] },
          { matcher: "Edit", hooks: [{ type: "command", command: `echo edit >> ${join(dir, "edit.log")}` }] },
          { hooks: [{ type: "command", command: record(all) }] },
        ],
      },
    }),
  );
  const result = await harness(["run", "--cwd", dir, "go"], { ANTHROPIC_API_KEY: "k", ANTHROPIC_BASE_URL: fake.url }).result;
  assert.equal(result.code, 0, result.stderr);
  assert.doesNotMatch(result.stderr, /unknown hook event/);

  const [input, ...more] = logged(log);
  assert.equal(more.length, 0, "the hook whose if names rm started for the rm call alone");
  assert.equal(input!.hook_event_name, "PermissionDenied");
  assert.equal(input!.tool_name, "Bash");
  assert.deepEqual(input!.tool_input, { command: "rm -rf build" });
  assert.equal(input!.tool_use_id, "toolu_rm");
  assert.match(String(input!.reason), /no one to approve/);
  assert.equal(input!.cwd, dir);
  assert.equal(typeof input!.session_id, "string");
  // A deny rule's refusal is not one: the hook without an if saw the two calls no one could approve.
  assert.deepEqual(logged(all).map((entry) => entry.tool_use_id).sort(), ["toolu_rm", "toolu_touch"]);
  assert.equal(existsSync(join(dir, "edit.log")), false, "the Edit matcher selects no Bash call");

  const body = fake.requests[1]!.body as Body;
  assert.match(toolResult(body, "toolu_rm"), /no one to approve/);
  assert.match(toolResult(body, "toolu_rm"), /may retry/);
  assert.doesNotMatch(toolResult(body, "toolu_touch"), /may retry/);
  assert.match(toolResult(body, "toolu_push"), /git push/);
});

test("PermissionDenied fires in dontAsk mode, the reason naming it, and an exit code 2 neither blocks nor warns", async (t) => {
  const fake = await withFake(t, startFakeAnthropic({ replies: [{ toolUses: [{ id: "toolu_w", name: "Write", input: { file_path: "a.txt", content: "x" } }] }, { text: "done" }] }));
  const dir = tempDir(t);
  const log = join(dir, "denied.log");
  mkdirSync(join(dir, ".claude"));
  writeFileSync(
    join(dir, ".claude", "settings.json"),
    JSON.stringify({ permissions: { defaultMode: "dontAsk" }, hooks: { PermissionDenied: [{ matcher: "Write", hooks: [{ type: "command", command: `${record(log)}; echo nope >&2; exit 2` }] }] } }),
  );
  const result = await harness(["run", "--cwd", dir, "go"], { ANTHROPIC_API_KEY: "k", ANTHROPIC_BASE_URL: fake.url }).result;
  assert.equal(result.code, 0, result.stderr);
  const [input] = logged(log);
  assert.equal(input!.tool_use_id, "toolu_w");
  assert.match(String(input!.reason), /dontAsk/);
  assert.doesNotMatch(result.stderr, /nope/);
  assert.doesNotMatch(toolResult(fake.requests[1]!.body as Body, "toolu_w"), /may retry/);
});

test("InstructionsLoaded fires for each memory file at the start and for those that join as the agent works below them", async (t) => {
  const fake = await withFake(
    t,
    startFakeAnthropic({
      replies: [
        { toolUses: [{ id: "toolu_api", name: "Read", input: { file_path: "src/api/x.ts" } }] },
        { toolUses: [{ id: "toolu_sub", name: "Read", input: { file_path: "sub/notes.txt" } }] },
        { text: "done" },
      ],
    }),
  );
  const dir = tempDir(t);
  const home = tempDir(t);
  const log = join(dir, "loaded.log");
  const lazy = join(dir, "lazy.log");
  mkdirSync(join(home, ".claude"));
  writeFileSync(join(home, ".claude", "CLAUDE.md"), "user memory\n");
  mkdirSync(join(dir, ".claude", "rules"), { recursive: true });
  mkdirSync(join(dir, "docs"));
  mkdirSync(join(dir, "src", "api"), { recursive: true });
  mkdirSync(join(dir, "sub"));
  writeFileSync(join(dir, "CLAUDE.md"), "project memory\n@docs/extra.md\n");
  writeFileSync(join(dir, "docs", "extra.md"), "imported\n");
  writeFileSync(join(dir, "CLAUDE.local.md"), "local memory\n");
  writeFileSync(join(dir, ".claude", "rules", "style.md"), "always\n");
  writeFileSync(join(dir, ".claude", "rules", "api.md"), "---\npaths: src/api/**\n---\napi rule\n");
  writeFileSync(join(dir, "src", "api", "x.ts"), "export {};\n");
  writeFileSync(join(dir, "sub", "CLAUDE.md"), "nested memory\n");
  writeFileSync(join(dir, "sub", "notes.txt"), "notes\n");
  writeFileSync(
    join(dir, ".claude", "settings.json"),
    JSON.stringify({
      hooks: {
        InstructionsLoaded: [
          { hooks: [{ type: "command", command: `${record(log)}; echo '{"continue": false}'` }] },
          { matcher: "path_glob_match|nested_traversal", hooks: [{ type: "command", command: record(lazy) }] },
        ],
      },
    }),
  );
  const result = await harness(["run", "--cwd", dir, "go"], { ANTHROPIC_API_KEY: "k", ANTHROPIC_BASE_URL: fake.url, HOME: home }).result;
  assert.equal(result.code, 0, result.stderr);
  assert.equal(fake.requests.length, 3, "its continue: false is discarded");

  const events = logged(log);
  for (const event of events) assert.equal(event.hook_event_name, "InstructionsLoaded");
  const seen = events.map(({ file_path, memory_type, load_reason, globs, trigger_file_path, parent_file_path }) => ({ file_path, memory_type, load_reason, globs, trigger_file_path, parent_file_path }));
  const at = (...parts: string[]) => join(dir, ...parts);
  // The hooks run beside the run, not before it: those of the start and those of the files that
  // joined later may interleave, and the latter (each a process of its own, started as its file
  // joins) may finish in either order; those of the start keep theirs.
  const lazily = (event: { trigger_file_path?: unknown }) => event.trigger_file_path !== undefined;
  const byFile = (a: { file_path?: unknown }, b: { file_path?: unknown }) => String(a.file_path).localeCompare(String(b.file_path));
  assert.deepEqual([...seen.filter((event) => !lazily(event)), ...seen.filter(lazily).sort(byFile)], [
    { file_path: join(home, ".claude", "CLAUDE.md"), memory_type: "User", load_reason: "session_start", globs: undefined, trigger_file_path: undefined, parent_file_path: undefined },
    { file_path: at("CLAUDE.md"), memory_type: "Project", load_reason: "session_start", globs: undefined, trigger_file_path: undefined, parent_file_path: undefined },
    { file_path: at("docs", "extra.md"), memory_type: "Project", load_reason: "include", globs: undefined, trigger_file_path: undefined, parent_file_path: at("CLAUDE.md") },
    { file_path: at(".claude", "rules", "style.md"), memory_type: "Project", load_reason: "session_start", globs: undefined, trigger_file_path: undefined, parent_file_path: undefined },
    { file_path: at("CLAUDE.local.md"), memory_type: "Local", load_reason: "session_start", globs: undefined, trigger_file_path: undefined, parent_file_path: undefined },
    { file_path: at(".claude", "rules", "api.md"), memory_type: "Project", load_reason: "path_glob_match", globs: ["src/api/**"], trigger_file_path: at("src", "api", "x.ts"), parent_file_path: undefined },
    { file_path: at("sub", "CLAUDE.md"), memory_type: "Project", load_reason: "nested_traversal", globs: undefined, trigger_file_path: at("sub", "notes.txt"), parent_file_path: undefined },
  ]);
  // The matcher selects on load_reason.
  assert.deepEqual(logged(lazy).map((event) => event.load_reason).sort(), ["nested_traversal", "path_glob_match"]);
});
