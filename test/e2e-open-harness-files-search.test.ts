// The Open Harness files search: a session's workspace searched by glob and by the text of its files,
// confined to it, passing by what a user expects passed by, and bounded.
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdir, mkdtemp, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startHarness } from "./e2e-commands-support.ts";
import { apiAs, V1 } from "./open-harness-support.ts";

type Match = { file: { path: string; type: string; size_bytes?: number; mime_type?: string }; line_matches?: { line_number: number; content: string }[] };

test("a workspace is searched by glob and by its files' lines, from a folder, passing by .git and node_modules unless asked", async () => {
  const h = await startHarness();
  const api = apiAs(h.server.url);
  const outside = await mkdtemp(join(tmpdir(), "harness-outside-"));
  try {
    const { session } = await (await api(`${V1}/sessions`, { method: "POST", body: "{}" })).json();
    const search = async (body: Record<string, unknown>) => {
      const response = await api(`${V1}/files/search`, { method: "POST", body: JSON.stringify({ session_id: session.id, ...body }) });
      return { status: response.status, body: await response.json() };
    };
    assert.deepEqual((await search({ glob: "**/*" })).body, { matches: [] }, "a workspace no run has made yet has nothing");
    const ws = h.workspace("alice", session.id);
    const put = async (path: string, text: string | Uint8Array) => {
      await mkdir(join(ws, path, ".."), { recursive: true });
      await writeFile(join(ws, path), text);
    };
    await put("src/main.ts", "import x from './x';\n// TODO: tidy\nexport const main = 1;\r\n");
    await put("src/lib/util.ts", "export function util() {}\n// todo later\n");
    await put("README.md", "# Project\nTODO: write\n");
    await put("node_modules/dep/index.ts", "// TODO: not ours\n");
    await put(".git/config", "TODO in git\n");
    await put("image.bin", new Uint8Array([0, 84, 79, 68, 79])); // NUL, then "TODO": binary
    await writeFile(join(outside, "secret.ts"), "// TODO: secret\n");
    await symlink(outside, join(ws, "out"));
    await symlink(join(outside, "secret.ts"), join(ws, "src", "leak.ts"));
    await symlink("main.ts", join(ws, "src", "alias.ts"));

    const paths = (matches: Match[]) => matches.map((m) => m.file.path);
    let r = await search({ glob: "**/*.ts" });
    assert.equal(r.status, 200);
    assert.deepEqual(paths(r.body.matches).sort(), ["src/alias.ts", "src/lib/util.ts", "src/main.ts"], "links out and node_modules are not searched");
    assert.deepEqual(Object.keys(r.body), ["matches"]);
    const main = r.body.matches.find((m: Match) => m.file.path === "src/main.ts");
    assert.equal(main.file.type, "file");
    assert.equal(main.file.mime_type, "text/typescript");
    assert.equal(main.line_matches, undefined, "a glob alone has no lines");

    r = await search({ glob: "*.ts", path: "/src" });
    assert.deepEqual(paths(r.body.matches).sort(), ["src/alias.ts", "src/main.ts"], "the glob is from the path, * within one folder");
    r = await search({ glob: "*" });
    assert.deepEqual(paths(r.body.matches).sort(), ["README.md", "image.bin", "src"], "nor are the folders passed by");
    r = await search({ glob: "src/*" });
    assert.ok(paths(r.body.matches).includes("src/lib"), "folders match by name");
    assert.equal(r.body.matches.find((m: Match) => m.file.path === "src/lib").file.type, "directory");

    r = await search({ grep: "TODO" });
    assert.deepEqual(paths(r.body.matches).sort(), ["README.md", "src/alias.ts", "src/main.ts"]);
    assert.deepEqual(r.body.matches.find((m: Match) => m.file.path === "src/main.ts").line_matches, [{ line_number: 2, content: "// TODO: tidy" }]);
    r = await search({ grep: "(?i:todo)", glob: "src/**/*.ts" });
    assert.deepEqual(paths(r.body.matches).sort(), ["src/alias.ts", "src/lib/util.ts", "src/main.ts"]);
    r = await search({ grep: "export const", glob: "**/*.ts" });
    assert.deepEqual(r.body.matches.find((m: Match) => m.file.path === "src/main.ts").line_matches, [{ line_number: 3, content: "export const main = 1;" }], "a CR ending the line is not its content");

    r = await search({ grep: "TODO", include_ignored: true });
    assert.deepEqual(paths(r.body.matches).sort(), [".git/config", "README.md", "node_modules/dep/index.ts", "src/alias.ts", "src/main.ts"]);
    r = await search({ glob: "node_modules/**/*.ts" });
    assert.deepEqual(paths(r.body.matches), ["node_modules/dep/index.ts"], "a glob that names node_modules enters it");
    r = await search({ grep: "TODO", path: "/node_modules" });
    assert.deepEqual(paths(r.body.matches), ["node_modules/dep/index.ts"], "so does a search that starts in it");

    r = await search({ grep: "." , max_results: 2 });
    assert.equal(r.body.matches.length, 2);
    assert.equal(r.body.truncated, true);
    assert.equal(r.body.reason, "max_results");
    assert.equal(r.body.limit, 2);

    const refused = async (body: Record<string, unknown>, status: number, message: RegExp) => {
      const { status: got, body: answer } = await search(body);
      assert.equal(got, status, JSON.stringify(answer));
      assert.match(answer.error.message, message);
    };
    await refused({ glob: "**", path: "out" }, 400, /path: "out" goes through a symbolic link that leads outside/);
    await refused({ glob: "**", path: "../x" }, 400, /path: .*"\.\."/);
    await refused({ glob: "**", path: "README.md" }, 400, /path: "README.md" is a file/);
    await refused({ glob: "**", path: "nowhere" }, 404, /no folder "nowhere"/);
    await refused({}, 400, /give glob, grep or both/);
    await refused({ grep: "(" }, 400, /grep: not a valid regular expression/);
    await refused({ glob: "**", max_results: 0 }, 400, /max_results: must be at least 1/);
    await refused({ glob: "**", max_results: 1001 }, 400, /max_results: must be at most 1000/);
    await refused({ glob: "**", regex: true }, 400, /regex/);
    await refused({ glob: "**", session_id: "nope" }, 404, /no session/);
    // The body is read as every JSON body of the API is: JSON, UTF-8, at most 64 KiB.
    const raw = (body: string | Uint8Array<ArrayBuffer>, type = "application/json") => api(`${V1}/files/search`, { method: "POST", body, headers: { "content-type": type } });
    for (const [response, status, message] of [
      [await raw("{not json"), 400, /body is not valid JSON/],
      [await raw(new Uint8Array([0x7b, 0xff, 0x7d])), 400, /not valid UTF-8/],
      [await raw(JSON.stringify({ session_id: session.id, glob: "**" }), "text/plain"), 415, /Content-Type/],
      [await raw(JSON.stringify({ session_id: session.id, glob: "x".repeat(70_000) })), 413, /larger than 65536 bytes/],
    ] as const) {
      assert.equal(response.status, status);
      assert.match((await response.json()).error.message, message);
    }
    const bob = await apiAs(h.server.url, "bob")(`${V1}/files/search`, { method: "POST", body: JSON.stringify({ session_id: session.id, glob: "**" }) });
    assert.equal(bob.status, 404, "another user's session is not found");
  } finally {
    await rm(outside, { recursive: true, force: true });
    await h.close();
  }
});
