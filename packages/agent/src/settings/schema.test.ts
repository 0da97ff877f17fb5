import assert from "node:assert/strict";
import { test } from "node:test";
import { validateSettings } from "./validate.ts";

test("autoCompactEnabled, claudeMdExcludes and disableSkillShellExecution of the wrong type are each dropped with a diagnostic naming the key and file", () => {
  const file = "/p/.claude/settings.json";
  const { settings, diagnostics } = validateSettings({ autoCompactEnabled: "no", claudeMdExcludes: ["**/a/CLAUDE.md", 3], disableSkillShellExecution: 1 }, file);
  const byKey = Object.fromEntries(diagnostics.map((d) => [d.key, d.message]));
  assert.ok(diagnostics.every((d) => d.file === file));
  assert.match(byKey.autoCompactEnabled, /expected boolean, got the string "no"/);
  assert.equal(byKey["claudeMdExcludes[1]"], "expected string, got number 3");
  assert.match(byKey.disableSkillShellExecution, /expected boolean, got number 1/);
  assert.deepEqual(settings, { claudeMdExcludes: ["**/a/CLAUDE.md"] });
});

test("claudeMdExcludes must be a list of patterns", () => {
  const { diagnostics } = validateSettings({ claudeMdExcludes: "**/CLAUDE.md" }, "/f.json");
  assert.match(diagnostics[0]!.message, /expected array, got the string/);
});

test("a statusLine without its command, or of another type, is dropped with a diagnostic naming the key", () => {
  const file = "/p/.claude/settings.json";
  const missing = validateSettings({ statusLine: { type: "command", padding: 1 } }, file);
  assert.deepEqual(missing.settings, {});
  assert.deepEqual(missing.diagnostics, [{ file, key: "statusLine.command", message: "required string is missing" }]);
  const other = validateSettings({ statusLine: { type: "script", command: "x" } }, file);
  assert.equal(other.diagnostics[0]?.key, "statusLine.type");
  const padding = validateSettings({ statusLine: { type: "command", command: "x", padding: -1 } }, file);
  assert.equal(padding.diagnostics[0]?.key, "statusLine.padding");
  assert.deepEqual(validateSettings({ statusLine: { type: "command", command: "~/.claude/statusline.sh", padding: 0 } }, file).settings, {
    statusLine: { type: "command", command: "~/.claude/statusline.sh", padding: 0 },
  });
});

test("extraKnownMarketplaces keeps the github, git and directory sources and leaves out the others, each named with its key", () => {
  const file = "/p/.claude/settings.json";
  const good = { source: { source: "github", repo: "team/plugins", ref: "v2" } };
  const { settings, diagnostics } = validateSettings(
    { extraKnownMarketplaces: { good, hosted: { source: { source: "url", url: "https://x/m.json" } }, sub: { source: { source: "git", url: "https://x/r.git", path: "m" } }, "a@b": good, odd: [] } },
    file,
  );
  assert.deepEqual(settings, { extraKnownMarketplaces: { good } });
  const byKey = Object.fromEntries(diagnostics.map((d) => [d.key, d.message]));
  assert.ok(diagnostics.every((d) => d.file === file));
  assert.match(byKey["extraKnownMarketplaces.hosted"], /its source is "url", which harness cannot add: .*github, git and directory sources; the marketplace is left out/);
  assert.match(byKey["extraKnownMarketplaces.sub"], /"source\.path" .* is not taken/);
  assert.match(byKey['extraKnownMarketplaces["a@b"]'], /name .* without slashes, ":" or "@"/);
  assert.match(byKey["extraKnownMarketplaces.odd"], /must be an object such as/);
  assert.match(validateSettings({ extraKnownMarketplaces: "team/plugins" }, file).diagnostics[0]!.message, /expected record/);
});
