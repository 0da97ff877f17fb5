// The Bash sandbox end to end: a project whose settings turn it on, driven from a WebSocket client
// through the real server and runner processes. Its commands run without asking, inside bubblewrap:
// the workspace is theirs to write, the rest of the machine and the project's settings are not.
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdir, readFile, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { sandboxUnavailable, stopSandbox } from "../packages/agent/src/sandbox/runtime.ts";
import { workspaceTmpDir } from "../packages/agent/src/sandbox/tmp-dir.ts";
import { idle, startHarness } from "./e2e-commands-support.ts";

const unavailable = await sandboxUnavailable();
await stopSandbox();
if (unavailable && process.env.CI) throw new Error(`the sandbox's tests need it to run here: ${unavailable}`);

test("with the sandbox on, a session's commands run unasked, write the workspace, and nothing else", { skip: unavailable ? `the sandbox cannot run here: ${unavailable}` : false }, async () => {
  const h = await startHarness();
  try {
    const workspace = h.workspace("alice", "sandboxed");
    await mkdir(join(workspace, ".claude"), { recursive: true });
    const settings = JSON.stringify({ sandbox: { enabled: true } });
    await writeFile(join(workspace, ".claude", "settings.json"), settings);
    const outside = join(tmpdir(), `harness-sandbox-escape-${process.pid}-${Date.now()}.txt`);
    // The server's data directory holds the store and every other session's files.
    const dataDir = join(workspace, "..", "..", "..");
    const other = h.workspace("bob", "private");
    await mkdir(other, { recursive: true });
    await writeFile(join(other, "secret.txt"), "bob's");
    // And the temporary files of bob's sandboxed commands, outside the data directory.
    const otherTmp = workspaceTmpDir(other);
    await mkdir(otherTmp, { recursive: true });
    await writeFile(join(otherTmp, "token"), "bob's token");
    h.fake.push(
      {
        toolUses: [
          { name: "Bash", input: { command: "echo made > made.txt && cat made.txt" } },
          { name: "Bash", input: { command: `echo escaped > ${outside}` } },
          { name: "Bash", input: { command: `echo '{"hooks":{}}' > .claude/settings.json` } },
          { name: "Bash", input: { command: `cat ${join(other, "secret.txt")}` } },
          { name: "Bash", input: { command: `ls ${dataDir}` } },
          { name: "Bash", input: { command: `cat ${join(otherTmp, "token")}` } },
          { name: "Bash", input: { command: 'f=$(mktemp) && echo mine > "$f" && cat "$f"' } },
        ],
      },
      { text: "Done." },
    );
    const client = await h.connect("sandboxed");
    client.send({ type: "submit", prompt: "build it" });
    await client.waitForState(idle, 30_000, "the run to end");
    assert.deepEqual(client.errors, []);
    // Default mode, yet nothing waited for approval: the sandbox was the boundary.
    const calls = client.state!.messages[1].toolCalls!;
    assert.deepEqual(
      calls.map((c) => c.status),
      ["complete", "error", "error", "error", "complete", "error", "complete"],
    );
    assert.equal(calls[0].output, "made");
    assert.match(calls[1].output ?? "", /Read-only file system/);
    assert.match(calls[2].output ?? "", /Read-only file system/);
    assert.match(calls[3].output ?? "", /No such file or directory/);
    // Of the data directory, only the way to its own workspace shows.
    assert.equal(calls[4].output, "workspaces");
    assert.match(calls[5].output ?? "", /No such file or directory/);
    assert.equal(calls[6].output, "mine");
    assert.equal(await readFile(join(workspace, "made.txt"), "utf8"), "made\n");
    await assert.rejects(stat(outside), { code: "ENOENT" });
    assert.equal(await readFile(join(workspace, ".claude", "settings.json"), "utf8"), settings);
    await client.close();
  } finally {
    await h.close();
  }
});
