import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtemp, rm, symlink } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { writtenPaths } from "./artifacts.ts";
import type { DetailedToolCall } from "./execution-record.ts";

let n = 0;
const call = (name: string, input: Record<string, unknown>, status: DetailedToolCall["status"] = "completed"): DetailedToolCall => ({ id: `c${++n}`, name, input, status, started_at: new Date(0).toISOString() });

test("the files a run wrote: each once, in the order first written, inside the workspace only", async () => {
  const base = await mkdtemp(join(tmpdir(), "artifacts-"));
  try {
    const linked = join(base, "linked");
    await symlink(base, linked);
    const paths = writtenPaths(
      [
        call("Write", { file_path: "a.txt", content: "x" }),
        call("Edit", { file_path: join(linked, "sub", "b.md") }),
        call("MultiEdit", { file_path: "./a.txt" }),
        call("NotebookEdit", { notebook_path: join(base, "nb.ipynb") }),
        call("Read", { file_path: "read-only.txt" }),
        call("Bash", { command: "echo > shell.txt" }),
        call("Write", { file_path: "failed.txt" }, "failed"),
        call("Write", { file_path: "asked.txt" }, "pending"),
        call("Write", { file_path: "../out.txt" }),
        call("Write", { file_path: "/etc/passwd" }),
        call("Write", { file_path: linked }),
        call("Write", { file_path: 7 }),
        call("Edit", {}),
      ],
      linked,
    );
    assert.deepEqual(paths, ["a.txt", "sub/b.md", "nb.ipynb"]);
  } finally {
    await rm(base, { recursive: true, force: true });
  }
});
