// A data directory written by a newer Harness is refused by an older one, which would otherwise
// read and write the newer version's database as if it were its own.
import { test } from "node:test";
import assert from "node:assert/strict";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { startHarnessServer } from "@harness/test-utils";
import { fakeModelForFile } from "./fake-model-support.ts";

const { newDataDir, modelEnv } = fakeModelForFile("harness-version-");

const versionOf = (file: string): number => {
  const db = new DatabaseSync(file, { readOnly: true });
  try {
    return (db.prepare("PRAGMA user_version").get() as { user_version: number }).user_version;
  } finally {
    db.close();
  }
};

test("a server refuses a database a newer version wrote, saying so, and leaves the file alone", async () => {
  const dataDir = await newDataDir();
  const file = join(dataDir, "harness.db");
  const started = await startHarnessServer({ dataDir, env: modelEnv() });
  assert.equal(await started.stop("SIGTERM"), 0);
  const own = versionOf(file);
  assert.ok(own >= 1, "a server writes the version of its database's format");

  const newer = new DatabaseSync(file);
  newer.exec(`PRAGMA user_version = ${own + 1}; CREATE TABLE from_the_future (x)`);
  newer.close();
  await assert.rejects(
    startHarnessServer({ dataDir, env: modelEnv() }),
    new RegExp(`exited with 1 before listening:[\\s\\S]*cannot open the database in ${dataDir}: it was written by a newer version of Harness \\(format ${own + 1}; this one reads up to ${own}\\)`),
  );
  assert.equal(versionOf(file), own + 1, "the file keeps its version");
});

test("a database from before versions were written is taken and marked with this version's", async () => {
  const dataDir = await newDataDir();
  const file = join(dataDir, "harness.db");
  const old = new DatabaseSync(file);
  old.exec("CREATE TABLE sessions (user_id TEXT NOT NULL, session_id TEXT NOT NULL, state TEXT NOT NULL, seq INTEGER NOT NULL, transcript TEXT NOT NULL, updated_at INTEGER NOT NULL, PRIMARY KEY (user_id, session_id)) WITHOUT ROWID");
  old.close();
  const server = await startHarnessServer({ dataDir, env: modelEnv() });
  await server.stop();
  assert.ok(versionOf(file) >= 1);
});

test("a server refuses a database that is not one (damaged, or another program's), naming the file and the ways out", async () => {
  const dataDir = await newDataDir();
  await writeFile(join(dataDir, "harness.db"), "this is not a database, but it is long enough to be read as a header of one".repeat(20));
  await assert.rejects(
    startHarnessServer({ dataDir, env: modelEnv() }),
    /cannot open the database in .*: file is not a database \(.*harness\.db is damaged or not Harness's: restore it from a backup, or move it aside with its -wal and -shm files to start with no sessions\)/,
  );
});
