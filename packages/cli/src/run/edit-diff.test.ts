// `harness run`'s text output shows what an edit changed, as Claude Code does: the removed and added
// lines under "Updated PATH with …", numbered where they are in the file.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { startFakeAnthropic, toolThenText } from "@harness/test-utils";
import { harness, tempDir, withFake } from "../test-support.ts";

test("harness run shows an edit's removed and added lines with their line numbers, without colour when piped", async (t) => {
  const dir = tempDir(t);
  const file = join(dir, "app.ts");
  writeFileSync(file, ["import x from 'x';", "", "export function f() {", "  const a = 1;", "  const b = 2;", "  return a + b;", "}", ""].join("\n"));
  const edit = { file_path: file, old_string: "  const b = 2;\n", new_string: "  const b = 3;\n  const c = 4;\n" };
  const fake = await withFake(t, startFakeAnthropic({ replies: [{ toolUses: [{ name: "Read", input: { file_path: file } }] }, ...toolThenText("Edit", edit, "Changed b.")] }));
  const { code, stdout, stderr } = await harness(["run", "--cwd", dir, "--model", "claude-test", "--permission-mode", "acceptEdits", "change b"], {
    ANTHROPIC_API_KEY: "test-key",
    ANTHROPIC_BASE_URL: fake.url,
  }).result;
  assert.equal(code, 0, stderr);
  assert.equal(stdout, "Changed b.\n");
  assert.ok(readFileSync(file, "utf8").includes("  const c = 4;\n"));
  assert.match(
    stderr,
    new RegExp(
      [
        "● Update\\(app\\.ts\\)",
        " {2}⎿ {2}Updated app\\.ts with 2 additions and 1 removal",
        " {5}2    ",
        " {5}3    export function f\\(\\) \\{",
        " {5}4      const a = 1;",
        " {5}5 -    const b = 2;",
        " {5}5 \\+    const b = 3;",
        " {5}6 \\+    const c = 4;",
        " {5}7      return a \\+ b;",
        " {5}8    \\}",
        "",
      ].join("\n"),
    ),
  );
  assert.doesNotMatch(stderr, /\x1b\[/, "no colour when stderr is not a terminal");
});
