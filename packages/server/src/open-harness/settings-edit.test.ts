import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ApiError } from "./errors.ts";
import { editJsonFile, inWorkspace } from "./settings-edit.ts";

const always = async () => {};

test("a JSON file is changed in one entry, every other key and number kept as written; changes of one file wait their turn", async (t) => {
  const root = await mkdtemp(join(tmpdir(), "settings-edit-"));
  t.after(() => rm(root, { recursive: true, force: true }));
  await writeFile(join(root, "settings.json"), '{ "z": 1, "id": 12345678901234567890, "ratio": 1.50, "a": { "b": [true] } }');
  await Promise.all(
    ["first", "second", "third"].map((name) =>
      editJsonFile(root, "settings.json", always, (value) => ({ value: { ...value, [name]: Object.keys(value).length }, result: undefined })),
    ),
  );
  const text = await readFile(join(root, "settings.json"), "utf8");
  assert.match(text, /"id": 12345678901234567890,/);
  assert.match(text, /"ratio": 1.50,/);
  assert.deepEqual(Object.keys(JSON.parse(text)), ["z", "id", "ratio", "a", "first", "second", "third"]);
  assert.deepEqual([JSON.parse(text).first, JSON.parse(text).second, JSON.parse(text).third], [4, 5, 6]);
});

test("a file that is not a JSON object is left as it is, the refusal naming it", async (t) => {
  const root = await mkdtemp(join(tmpdir(), "settings-edit-"));
  t.after(() => rm(root, { recursive: true, force: true }));
  for (const text of ["{ broken", "[1, 2]"]) {
    await writeFile(join(root, ".mcp.json"), text);
    await assert.rejects(
      editJsonFile(root, ".mcp.json", always, () => ({ value: {}, result: undefined })),
      (error: unknown) => error instanceof ApiError && error.status === 409 && /^\.mcp\.json (is not valid JSON|does not hold a JSON object)/.test(error.message),
    );
    assert.equal(await readFile(join(root, ".mcp.json"), "utf8"), text);
  }
});

test("a file outside the workspace, or the user's own configuration, is not the API's to write", () => {
  assert.equal(inWorkspace("/w", "/w/.claude/settings.json", "it", "/home/u"), ".claude/settings.json");
  assert.throws(() => inWorkspace("/w/sub", "/w/.mcp.json", "the project's .mcp.json", "/home/u"), (error: unknown) => error instanceof ApiError && error.status === 409 && /outside the session's workspace/.test(error.message));
  assert.throws(() => inWorkspace("/home/u", "/home/u/.claude/settings.json", "it", "/home/u"), (error: unknown) => error instanceof ApiError && error.status === 403);
  assert.throws(() => inWorkspace("/home/u", "/home/u/.claude.json", "it", "/home/u"), (error: unknown) => error instanceof ApiError && error.status === 403);
});
