// The Open Harness batch download: files and folders of a session's workspace as one ZIP archive,
// read back here entry by entry (as any unzip tool would, from its central directory).
import { test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdir, mkdtemp, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { inflateRawSync, crc32 } from "node:zlib";
import { startHarness } from "./e2e-commands-support.ts";
import { apiAs, V1 } from "./open-harness-support.ts";

/** The entries of a ZIP archive by name: a folder's content is null. Each file's CRC is checked. */
function unzip(zip: Buffer): Map<string, Buffer | null> {
  const end = zip.lastIndexOf(Buffer.from([0x50, 0x4b, 0x05, 0x06]));
  assert.ok(end >= 0, "an end of central directory");
  const count = zip.readUInt16LE(end + 10);
  let at = zip.readUInt32LE(end + 16);
  const entries = new Map<string, Buffer | null>();
  for (let i = 0; i < count; i++) {
    assert.equal(zip.readUInt32LE(at), 0x02014b50);
    const [method, crc, packed, size, nameLength, extra, comment, offset] = [zip.readUInt16LE(at + 10), zip.readUInt32LE(at + 16), zip.readUInt32LE(at + 20), zip.readUInt32LE(at + 24), zip.readUInt16LE(at + 28), zip.readUInt16LE(at + 30), zip.readUInt16LE(at + 32), zip.readUInt32LE(at + 42)];
    const name = zip.subarray(at + 46, at + 46 + nameLength).toString("utf8");
    at += 46 + nameLength + extra + comment;
    if (name.endsWith("/")) {
      entries.set(name, null);
      continue;
    }
    const start = offset + 30 + zip.readUInt16LE(offset + 26) + zip.readUInt16LE(offset + 28);
    const data = method === 8 ? inflateRawSync(zip.subarray(start, start + packed)) : zip.subarray(start, start + packed);
    assert.equal(data.length, size, `${name}: its size`);
    assert.equal(crc32(data), crc, `${name}: its CRC`);
    entries.set(name, data);
  }
  return entries;
}

test("files and folders of a workspace are downloaded as one ZIP keeping their folders; paths out of it, missing or too many are refused first", async () => {
  const h = await startHarness();
  const api = apiAs(h.server.url);
  const outside = await mkdtemp(join(tmpdir(), "harness-outside-"));
  try {
    const { session } = await (await api(`${V1}/sessions`, { method: "POST", body: "{}" })).json();
    const ws = h.workspace("alice", session.id);
    await mkdir(join(ws, "src", "lib"), { recursive: true });
    await mkdir(join(ws, "empty"));
    await writeFile(join(ws, "README.md"), "# Readme\n".repeat(100));
    await writeFile(join(ws, "src", "main.ts"), "main");
    await writeFile(join(ws, "src", "lib", "util.ts"), "util");
    await writeFile(join(ws, "src", "lib", "zero.bin"), "");
    await writeFile(join(ws, "ünï.txt"), new Uint8Array([0, 255, 1]));
    await writeFile(join(outside, "secret.txt"), "secret");
    await symlink(outside, join(ws, "src", "out"));
    await symlink(join(outside, "secret.txt"), join(ws, "src", "leak.txt"));
    await symlink("main.ts", join(ws, "src", "alias.ts"));
    const download = (body: Record<string, unknown>) => api(`${V1}/files/download-batch`, { method: "POST", body: JSON.stringify({ session_id: session.id, ...body }) });

    const response = await download({ paths: ["/README.md", "src", "empty", "ünï.txt", "src/main.ts"] });
    assert.equal(response.status, 200);
    assert.equal(response.headers.get("content-type"), "application/zip");
    assert.match(response.headers.get("content-disposition") ?? "", /^attachment; filename="files.zip"/);
    const zip = Buffer.from(await response.arrayBuffer());
    const entries = unzip(zip);
    assert.deepEqual([...entries.keys()], ["README.md", "src/", "src/alias.ts", "src/lib/", "src/main.ts", "src/lib/util.ts", "src/lib/zero.bin", "empty/", "ünï.txt"], "a folder with all it holds, a link in it as what it leads to, links out left out, each once");
    assert.equal(entries.get("README.md")!.toString(), "# Readme\n".repeat(100));
    assert.equal(entries.get("src/alias.ts")!.toString(), "main");
    assert.equal(entries.get("src/lib/zero.bin")!.length, 0);
    assert.deepEqual([...entries.get("ünï.txt")!], [0, 255, 1]);
    assert.ok(!zip.includes("# Readme\n# Readme\n# Readme\n"), "deflated: the repeated readme is not there as it is");
    // What other tools make of it: unzip where the machine has it.
    const file = join(outside, "files.zip");
    await writeFile(file, zip);
    try {
      assert.match(execFileSync("unzip", ["-t", file], { encoding: "utf8" }), /No errors detected/);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
    }

    const whole = unzip(Buffer.from(await (await download({ paths: ["/"] })).arrayBuffer()));
    assert.ok(whole.has("src/lib/util.ts") && whole.has("README.md") && !whole.has("/") && !whole.has("src/leak.txt"));

    const refused = async (body: Record<string, unknown>, status: number, message: RegExp) => {
      const got = await download(body);
      const answer = await got.json();
      assert.equal(got.status, status, JSON.stringify(answer));
      assert.match(answer.error.message, message);
    };
    await refused({ paths: ["README.md", "src/out/secret.txt"] }, 400, /"src\/out\/secret.txt" goes through a symbolic link that leads outside/);
    await refused({ paths: ["src/leak.txt"] }, 400, /symbolic link that leads outside/);
    await refused({ paths: ["../x"] }, 400, /paths\.0: .*"\.\."/);
    await refused({ paths: ["README.md", "nothing.txt"] }, 404, /no file "nothing.txt"/);
    await refused({ paths: [] }, 400, /paths: must name at least one path/);
    await refused({ paths: Array.from({ length: 1001 }, (_, i) => `f${i}`) }, 400, /paths: must name at most 1000 paths/);
    await refused({}, 400, /paths/);
    await refused({ paths: ["README.md"], format: "tar" }, 400, /format/);
    for (let i = 0; i < 1001; i++) await writeFile(join(ws, "empty", `f${i}.txt`), "");
    await refused({ paths: ["empty"] }, 413, /more than 1000 files and folders/);
    const bob = await apiAs(h.server.url, "bob")(`${V1}/files/download-batch`, { method: "POST", body: JSON.stringify({ session_id: session.id, paths: ["README.md"] }) });
    assert.equal(bob.status, 404, "another user's session is not found");
  } finally {
    await rm(outside, { recursive: true, force: true });
    await h.close();
  }
});

test("a name with a backslash, or a first folder named as a drive (C:), which tools on Windows read as a path out (..\\x, C:/x), is left out of an archive, and refused when named", async () => {
  const h = await startHarness();
  const api = apiAs(h.server.url);
  try {
    const { session } = await (await api(`${V1}/sessions`, { method: "POST", body: "{}" })).json();
    const ws = h.workspace("alice", session.id);
    await mkdir(join(ws, "dir\\sub"), { recursive: true });
    await writeFile(join(ws, "dir\\sub", "in.txt"), "in");
    await writeFile(join(ws, "..\\evil.txt"), "evil");
    await writeFile(join(ws, "fine.txt"), "fine");
    await mkdir(join(ws, "C:"));
    await writeFile(join(ws, "C:", "x.txt"), "drive");
    await writeFile(join(ws, "at 10:30.txt"), "a colon elsewhere");
    const download = (paths: string[]) => api(`${V1}/files/download-batch`, { method: "POST", body: JSON.stringify({ session_id: session.id, paths }) });
    const entries = unzip(Buffer.from(await (await download(["/"])).arrayBuffer()));
    assert.deepEqual([...entries.keys()], ["at 10:30.txt", "fine.txt"]);
    const named = await download(["fine.txt", "..\\evil.txt"]);
    assert.equal(named.status, 400);
    assert.match((await named.json()).error.message, /paths: "\.\.\\evil\.txt" has a backslash in its name/);
    const drive = await download(["C:/x.txt"]);
    assert.equal(drive.status, 400);
    assert.match((await drive.json()).error.message, /paths: "C:\/x\.txt" starts with a drive's name/);
  } finally {
    await h.close();
  }
});

test("a folder of more entries than a download looks through, even ones it leaves out (links out), is refused rather than walked for ever", async () => {
  const h = await startHarness();
  const api = apiAs(h.server.url);
  try {
    const { session } = await (await api(`${V1}/sessions`, { method: "POST", body: "{}" })).json();
    const ws = h.workspace("alice", session.id);
    await mkdir(join(ws, "links"), { recursive: true });
    for (let i = 0; i <= 100_000; i += 1000) await Promise.all(Array.from({ length: 1000 }, (_, j) => symlink("/etc/hostname", join(ws, "links", `l${i + j}`))));
    const response = await api(`${V1}/files/download-batch`, { method: "POST", body: JSON.stringify({ session_id: session.id, paths: ["/"] }) });
    const answer = await response.json();
    assert.equal(response.status, 413, JSON.stringify(answer));
    assert.match(answer.error.message, /more than 100000 entries to look through/);
  } finally {
    await h.close();
  }
});
