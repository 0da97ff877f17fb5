import assert from "node:assert/strict";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { loadMcpConfig, mcpEntryFingerprint } from "./load-config.ts";

test("an entry's fingerprint does not depend on the order of its keys, and changes with anything in it", () => {
  const entry = { command: "srv", args: ["--a"], env: { A: "1", B: "2" } };
  assert.equal(mcpEntryFingerprint(entry), mcpEntryFingerprint({ env: { B: "2", A: "1" }, args: ["--a"], command: "srv" }));
  assert.match(mcpEntryFingerprint(entry), /^[0-9a-f]{64}$/);
  assert.notEqual(mcpEntryFingerprint(entry), mcpEntryFingerprint({ ...entry, args: ["--b"] }));
  assert.notEqual(mcpEntryFingerprint(entry), mcpEntryFingerprint({ ...entry, env: { A: "1", B: "3" } }));
});

test("a host's approval starts a .mcp.json server while its entry is the one approved; the user's disabledMcpjsonServers still wins", async () => {
  const root = await mkdtemp(join(tmpdir(), "mcp-granted-"));
  try {
    const project = join(root, "project");
    await mkdir(project);
    const kept = { command: "kept-server" };
    const changed = { command: "changed-server", args: ["--new"] };
    await writeFile(join(project, ".mcp.json"), JSON.stringify({ mcpServers: { kept, changed, off: kept, plain: kept } }));
    const config = await loadMcpConfig({
      projectRoot: project,
      home: root,
      approvals: {},
      settings: { disabledMcpjsonServers: ["off"] },
      granted: [
        { name: "kept", entry: mcpEntryFingerprint(kept) },
        { name: "changed", entry: mcpEntryFingerprint({ command: "changed-server" }) },
        { name: "off", entry: mcpEntryFingerprint(kept) },
      ],
    });
    assert.deepEqual(config.servers.map((server) => server.name), ["kept"]);
    assert.deepEqual(
      config.disabled.map(({ name, reason }) => [name, reason.split(":")[0]]),
      [["changed", "not approved"], ["off", "listed in disabledMcpjsonServers"], ["plain", "not approved"]],
    );
  } finally {
    await rm(root, { recursive: true, force: true });
  }
});
