// A session's workspace and its runner state never share a path, and state left beside a workspace
// by earlier versions moves to the state tree unless it is another session's workspace.
import { test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { sessionDirs } from "./dirs.ts";

async function withDataDir(body: (dataDir: string) => Promise<void> | void): Promise<void> {
  const dataDir = await mkdtemp(join(tmpdir(), "harness-dirs-"));
  try {
    await body(dataDir);
  } finally {
    await rm(dataDir, { recursive: true, force: true });
  }
}

function legacyState(dataDir: string, userId: string, sessionId: string): string {
  const path = join(dataDir, "workspaces", userId, `${sessionId}.harness-state`);
  mkdirSync(join(path, "checkpoints.git"), { recursive: true });
  writeFileSync(join(path, "checkpoints.jsonl"), '{"userMessageId":"m1"}\n');
  return path;
}

test("the workspace and the state of a session are in separate trees, whatever the ids", () =>
  withDataDir((dataDir) => {
    const dirs = sessionDirs({ dataDir, sessionExists: () => false, log: () => {} });
    assert.equal(dirs.workspaceOf("u", "p"), join(dataDir, "workspaces", "u", "p"));
    assert.equal(dirs.stateOf("u", "p"), join(dataDir, "state", "u", "p"));
    assert.notEqual(dirs.stateOf("u", "p"), dirs.workspaceOf("u", "p.harness-state"));
  }));

test("legacy state moves to the state tree once, and is never taken from another session", () =>
  withDataDir((dataDir) => {
    const sessions = new Set(["u\0q.harness-state"]);
    const lines: string[] = [];
    const dirs = sessionDirs({ dataDir, sessionExists: (u, s) => sessions.has(`${u}\0${s}`), log: (line) => lines.push(line) });

    const legacy = legacyState(dataDir, "u", "p");
    assert.equal(dirs.legacyStateOf("u", "p"), legacy);
    dirs.adoptLegacyState("u", "p");
    assert.equal(existsSync(legacy), false);
    assert.equal(readFileSync(join(dirs.stateOf("u", "p"), "checkpoints.jsonl"), "utf8"), '{"userMessageId":"m1"}\n');
    assert.match(lines.join("\n"), /moved the runner state of u\/p/);
    dirs.adoptLegacyState("u", "p");
    assert.equal(lines.length, 1, "nothing more to move");

    // "q.harness-state" is a session: that directory is its workspace.
    const workspace = legacyState(dataDir, "u", "q");
    assert.equal(dirs.legacyStateOf("u", "q"), undefined);
    dirs.adoptLegacyState("u", "q");
    assert.ok(existsSync(join(workspace, "checkpoints.jsonl")));
    assert.equal(existsSync(dirs.stateOf("u", "q")), false);

    // A directory without a runner's state in it is left alone.
    const other = join(dataDir, "workspaces", "u", "r.harness-state");
    mkdirSync(other, { recursive: true });
    writeFileSync(join(other, "notes.txt"), "mine");
    assert.equal(dirs.legacyStateOf("u", "r"), undefined);

    // State already in the tree wins: the legacy directory stays where it is.
    const stale = legacyState(dataDir, "u", "s");
    mkdirSync(dirs.stateOf("u", "s"), { recursive: true });
    dirs.adoptLegacyState("u", "s");
    assert.ok(existsSync(stale));
  }));
