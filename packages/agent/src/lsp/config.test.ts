import assert from "node:assert/strict";
import { test } from "node:test";
import type { Plugin } from "../plugins/types.ts";
import { lspServersOf, parseLspServer } from "./config.ts";

const kit = { name: "kit", root: "/plugins/kit", dataDir: "/data/kit" };

test("an entry's fields are read, ${CLAUDE_PLUGIN_ROOT} and ${CLAUDE_PLUGIN_DATA} expanded in command, args and env, extensions lower-cased", () => {
  const parsed = parseLspServer(kit, "ts", {
    command: "${CLAUDE_PLUGIN_ROOT}/bin/ls",
    args: ["--stdio", "--cache=${CLAUDE_PLUGIN_DATA}"],
    env: { LOG: "${CLAUDE_PLUGIN_ROOT}/log" },
    extensionToLanguage: { ".TS": "typescript", ".tsx": "typescriptreact" },
    transport: "stdio",
    settings: { ts: { strict: true } },
    initializationOptions: { a: 1 },
    startupTimeout: 5000,
    restartOnCrash: false,
    maxRestarts: 0,
    loggingConfig: { level: "off" },
  });
  assert.deepEqual(parsed, {
    name: "plugin:kit:ts",
    command: "/plugins/kit/bin/ls",
    args: ["--stdio", "--cache=/data/kit"],
    env: { CLAUDE_PLUGIN_ROOT: "/plugins/kit", CLAUDE_PLUGIN_DATA: "/data/kit", LOG: "/plugins/kit/log" },
    extensionToLanguage: { ".ts": "typescript", ".tsx": "typescriptreact" },
    initializationOptions: { a: 1 },
    settings: { ts: { strict: true } },
    startupTimeoutMs: 5000,
    restartOnCrash: false,
    maxRestarts: 0,
  });
});

test("each bad field is named", () => {
  const base = { command: "ls", extensionToLanguage: { ".ts": "typescript" } };
  const cases: [Record<string, unknown>, string][] = [
    [{ extensionToLanguage: { ".ts": "ts" } }, "command: required"],
    [{ ...base, command: " " }, "command: must be a non-empty string"],
    [{ ...base, args: "--stdio" }, "args: must be a list of strings"],
    [{ ...base, transport: "socket" }, 'transport: "socket" is not supported (only "stdio")'],
    [{ ...base, extensionToLanguage: { ts: "typescript" } }, 'extensionToLanguage: "ts" is not a file extension (such as ".ts")'],
    [{ ...base, extensionToLanguage: { ".ts": 1 } }, "extensionToLanguage: .ts: the language must be a non-empty string"],
    [{ ...base, extensionToLanguage: {} }, "extensionToLanguage: must name at least one extension"],
    [{ ...base, env: { A: 1 } }, "env: must be an object of strings"],
    [{ ...base, startupTimeout: -1 }, "startupTimeout: must be a whole number of milliseconds above 0"],
    [{ ...base, restartOnCrash: "yes" }, "restartOnCrash: must be true or false"],
    [{ ...base, maxRestarts: 1.5 }, "maxRestarts: must be a whole number, 0 or more"],
    [{ ...base, settings: [] }, "settings: must be an object"],
  ];
  for (const [raw, message] of cases) assert.equal(parseLspServer(kit, "ts", raw), message, JSON.stringify(raw));
  assert.equal(parseLspServer(kit, "ts", "ls"), "must be an object with command and extensionToLanguage");
});

test("a second server for an extension is left out of it, said; a server with no extension left is not kept", () => {
  const plugin = (name: string, servers: Record<string, unknown>): Plugin =>
    ({ name, root: `/p/${name}`, dataDir: `/d/${name}`, lspServers: Object.entries(servers).map(([server, raw]) => ({ name: server, raw, file: `/p/${name}/.lsp.json`, key: server })) }) as unknown as Plugin;
  const { servers, diagnostics } = lspServersOf([
    plugin("a", { ts: { command: "a", extensionToLanguage: { ".ts": "typescript", ".js": "javascript" } } }),
    plugin("b", { ts: { command: "b", extensionToLanguage: { ".ts": "typescript", ".mts": "typescript" } }, js: { command: "c", extensionToLanguage: { ".js": "javascript" } } }),
  ]);
  assert.deepEqual(
    servers.map((s) => [s.name, Object.keys(s.extensionToLanguage)]),
    [
      ["plugin:a:ts", [".ts", ".js"]],
      ["plugin:b:ts", [".mts"]],
    ],
  );
  assert.deepEqual(
    diagnostics.map((d) => d.message),
    ['LSP server "ts" of plugin b does not handle .ts files: plugin:a:ts does', 'LSP server "js" of plugin b does not handle .js files: plugin:a:ts does'],
  );
});
