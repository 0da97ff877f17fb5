// The suite's files and tools tests: the scratch session's workspace written, read back, listed and
// deleted over the API; and (slow) the session's runner calling its tools on it, in its sandbox.
import { ensure, expectStatus, type LoopbackApi } from "./client.ts";
import type { ConformanceTest } from "./types.ts";

/** Text with more than ASCII in it, so that a write that changes bytes shows. */
export const PROBE_TEXT = "conformance probe: ✓ café\nsecond line\n";

/** Writes `text` at `path` (in the workspace) and returns nothing; fails naming why it was not. */
export async function writeProbe(api: LoopbackApi, q: string, path: string, text = PROBE_TEXT): Promise<void> {
  expectStatus(await api.call("PUT", `/files/${path}${q}`, { body: text }), 200, 201);
}

/** The text of the file at `path`, which must be there. */
export async function readProbe(api: LoopbackApi, q: string, path: string): Promise<string> {
  return expectStatus(await api.call("GET", `/files/${path}${q}`), 200).text;
}

async function listed(api: LoopbackApi, q: string, folder: string): Promise<{ name?: string; path?: string; size_bytes?: number }[]> {
  const answer = expectStatus(await api.call("GET", `/files${q}&path=${encodeURIComponent(folder)}`), 200).json;
  ensure(Array.isArray(answer?.files), `GET /files answered no files list: ${JSON.stringify(answer).slice(0, 200)}`);
  return answer.files;
}

const named = (entry: { name?: string; path?: string }, name: string) => entry.name === name || entry.path?.endsWith(name) === true;

export const FILE_TESTS: ConformanceTest[] = [
  {
    id: "files.write-read",
    name: "a file written in the workspace reads back byte for byte",
    category: "files",
    writesWorkspace: true,
    async run({ api, q }) {
      await writeProbe(api, q, "conformance/write-read.txt");
      const back = await readProbe(api, q, "conformance/write-read.txt");
      ensure(back === PROBE_TEXT, `the file read back is not what was written: ${JSON.stringify(back.slice(0, 100))}`);
    },
  },
  {
    id: "files.list",
    name: "a file written is listed with its size",
    category: "files",
    writesWorkspace: true,
    async run({ api, q }) {
      await writeProbe(api, q, "conformance/listed.txt");
      const entry = (await listed(api, q, "conformance")).find((e) => named(e, "listed.txt"));
      ensure(entry, "GET /files does not list the file just written");
      ensure(entry.size_bytes === Buffer.byteLength(PROBE_TEXT), `the file is listed with size_bytes ${entry.size_bytes}, not ${Buffer.byteLength(PROBE_TEXT)}`);
    },
  },
  {
    id: "files.delete",
    name: "a file deleted is gone: not read, not listed",
    category: "files",
    writesWorkspace: true,
    async run({ api, q }) {
      await writeProbe(api, q, "conformance/deleted.txt");
      expectStatus(await api.call("DELETE", `/files/conformance/deleted.txt${q}`), 204);
      expectStatus(await api.call("GET", `/files/conformance/deleted.txt${q}`), 404);
      ensure(!(await listed(api, q, "conformance")).some((e) => named(e, "deleted.txt")), "GET /files still lists the deleted file");
    },
  },
  {
    id: "tools.read",
    name: "the session's runner starts and its Read tool reads a file written over the API",
    category: "tools",
    slow: true,
    writesWorkspace: true,
    async run({ api, q, workspace }) {
      await writeProbe(api, q, "conformance/for-runner.txt");
      const answer = expectStatus(await api.call("POST", `/tools/Read/invoke${q}`, { json: { input: { file_path: `${workspace}/conformance/for-runner.txt` } } }), 200).json;
      ensure(answer?.success === true, `Read did not succeed: ${JSON.stringify(answer?.error ?? answer).slice(0, 300)}`);
      ensure(JSON.stringify(answer.output).includes("second line"), `Read's output does not hold the file's text: ${JSON.stringify(answer.output).slice(0, 300)}`);
    },
  },
  {
    id: "tools.bash-sandbox",
    name: "a command run by the session's runner (in its sandbox, when on) sees the workspace and writes in it",
    category: "tools",
    slow: true,
    writesWorkspace: true,
    async run({ api, q }) {
      // A rule of the scratch workspace's own settings lets the call run without asking anyone.
      await writeProbe(api, q, ".claude/settings.local.json", JSON.stringify({ permissions: { allow: ["Bash", "Edit(./conformance/**)"] } }));
      await writeProbe(api, q, "conformance/for-command.txt");
      const command = "cat conformance/for-command.txt && echo made-by-command > conformance/from-command.txt";
      const answer = expectStatus(await api.call("POST", `/tools/Bash/invoke${q}`, { json: { input: { command } } }), 200).json;
      ensure(answer?.success === true, `Bash did not succeed: ${JSON.stringify(answer?.error ?? answer).slice(0, 300)}`);
      ensure(JSON.stringify(answer.output).includes("second line"), `the command did not see the workspace's file: ${JSON.stringify(answer.output).slice(0, 300)}`);
      const made = await readProbe(api, q, "conformance/from-command.txt");
      ensure(made.trim() === "made-by-command", `the file the command wrote reads ${JSON.stringify(made.slice(0, 100))} over the API`);
    },
  },
];
