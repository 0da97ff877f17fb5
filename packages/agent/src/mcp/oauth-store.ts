// Where the OAuth sign-ins of remote MCP servers are kept: one file of our own under the user's
// Claude config directory, mode 0600, never in a project. Claude Code keeps its own in the macOS
// keychain (or, elsewhere, inside ~/.claude/.credentials.json beside the Claude account's
// credential, in an undocumented shape): neither is a place another program should write, so the
// two tools sign in separately.
//
// The file is read where a run's MCP client runs. Under `harness serve` that is the runner, on the
// server's machine and as the server's user: every session of that server uses the sign-ins of the
// user who ran `harness mcp login` there, as it uses that user's ~/.claude.json servers. The server
// hides the file from its sessions' Bash sandbox and file tools, as it hides its other credentials.
import { createHash } from "node:crypto";
import { chmodSync, existsSync } from "node:fs";
import { dirname, join } from "node:path";
import type { OAuthClientInformationMixed, OAuthTokens } from "@modelcontextprotocol/sdk/shared/auth.js";
import type { OAuthDiscoveryState } from "@modelcontextprotocol/sdk/client/auth.js";
import { writeFileAtomically } from "../files/atomic-write.ts";
import { isJsonObject } from "../config/json-text.ts";
import { readJsonObjectFile } from "../files/json-object-file.ts";
import { makeDirsSync } from "../files/make-dirs.ts";
import { userConfigDir } from "../config/user-config-dir.ts";
import { withLock, withLockSync } from "../files/lock-file.ts";

export const MCP_OAUTH_FILE_NAME = "harness-mcp-oauth.json";

/** The sign-in file of the user whose home is `home`: in their configuration directory, which
 * CLAUDE_CONFIG_DIR in `env` may move (config/user-config-dir.ts). */
export function mcpOAuthFile(home: string, env: Readonly<Record<string, string | undefined>> = process.env): string {
  return join(userConfigDir(home, env), MCP_OAUTH_FILE_NAME);
}

/** One server's sign-in. Kept under its name and URL together: an entry of the same name that
 * points elsewhere (another project's) is not given these tokens. */
export type McpOAuthEntry = {
  serverName: string;
  serverUrl: string;
  clientInformation?: OAuthClientInformationMixed;
  tokens?: OAuthTokens;
  /** When `tokens` were saved (ms since the epoch), so that their `expires_in` can be judged. */
  tokensSavedAt?: number;
  discoveryState?: OAuthDiscoveryState;
  /** The secret of the client the server's config names (`oauth.clientId`), as given to `harness
   * mcp add --client-secret`: configuration rather than a sign-in, so signing out keeps it. */
  clientSecret?: string;
};

export type McpOAuthServer = { name: string; url: string };

const key = (server: McpOAuthServer) => `${server.name}|${server.url}`;

/** Every entry of the file; none when there is no file. Throws an Error naming the file when it
 * cannot be read or is not what this program writes. */
function readAll(file: string): Record<string, McpOAuthEntry> {
  const read = readJsonObjectFile(file);
  if (!read) return {};
  const servers = read.value.servers ?? {};
  if (!isJsonObject(servers)) throw new Error(`${file}: "servers" must be an object`);
  const entries: Record<string, McpOAuthEntry> = {};
  for (const [name, entry] of Object.entries(servers)) {
    if (isJsonObject(entry) && typeof entry.serverName === "string" && typeof entry.serverUrl === "string") entries[name] = entry as McpOAuthEntry;
  }
  return entries;
}

export function readOAuthEntry(file: string, server: McpOAuthServer): McpOAuthEntry | undefined {
  return readAll(file)[key(server)];
}

type EntryChange = (entry: McpOAuthEntry | undefined) => McpOAuthEntry | undefined;

/** Changes one server's entry (`change` returns undefined to remove it) and writes the file back
 * whole, atomically, mode 0600. The read, the change and the write hold the file's lock
 * (files/lock-file.ts): another program's write in between is never lost. Waiting for that lock sleeps
 * the thread (up to WRITE_LOCK.waitMs): for the commands that run one thing at a time (`harness
 * mcp login`, `add`, `logout`); a program serving other work at once uses updateOAuthEntryAsync. */
export function updateOAuthEntry(file: string, server: McpOAuthServer, change: EntryChange): void {
  if (dirReady(file, change)) withLockSync(`${file}.lock`, WRITE_LOCK, () => writeChange(file, server, change));
}

/** updateOAuthEntry waiting for the lock without blocking the thread: a runner's sessions go on
 * while another program (a stuck or suspended one holds it until stale) writes. */
export async function updateOAuthEntryAsync(file: string, server: McpOAuthServer, change: EntryChange): Promise<void> {
  if (dirReady(file, change)) await withLock(`${file}.lock`, WRITE_LOCK, async () => writeChange(file, server, change));
}

/** Makes the file's directory, for its lock; false when there is none and the change writes
 * nothing (no directory, no entries: none is made for nothing). */
function dirReady(file: string, change: EntryChange): boolean {
  if (existsSync(dirname(file))) return true;
  if (change(undefined) === undefined) return false;
  makeDirsSync(dirname(file), 0o700);
  return true;
}

/** Reads, changes and writes back the file; under its lock. */
function writeChange(file: string, server: McpOAuthServer, change: EntryChange): void {
  const all = readAll(file);
  const next = change(all[key(server)]);
  if (next) all[key(server)] = next;
  else if (key(server) in all) delete all[key(server)];
  else return;
  writeFileAtomically(file, `${JSON.stringify({ servers: all }, null, 2)}\n`, { newMode: 0o600 });
  // A file made readable to others by hand is closed again: it holds bearer tokens.
  chmodSync(file, 0o600);
}

/** A write holds the lock for a few milliseconds; one held seconds is a program that died writing. */
const WRITE_LOCK = { staleMs: 5_000, waitMs: 10_000 };

/** The lock one server's refresh holds (oauth-provider.ts), beside the file: a refresh token good
 * once is sent by one program at a time. */
export function refreshLockFile(file: string, server: McpOAuthServer): string {
  return `${file}.${createHash("sha256").update(key(server)).digest("hex").slice(0, 16)}.refresh.lock`;
}

/** What stays of `entry` signed out: the client secret given for its server (configuration, not
 * something learnt by signing in), or nothing. */
export function signedOut(entry: McpOAuthEntry): McpOAuthEntry | undefined {
  const { serverName, serverUrl, clientSecret } = entry;
  return clientSecret === undefined ? undefined : { serverName, serverUrl, clientSecret };
}

/** Signs `name` out, whatever its URL (for logout): its tokens, registration and discovered
 * endpoints go; a client secret given for it stays. Resolves to how many sign-ins there were. */
export function removeOAuthEntries(file: string, name: string): number {
  const all = readAll(file);
  const signedIn = Object.values(all).filter((entry) => entry.serverName === name && (entry.tokens || entry.clientInformation || entry.discoveryState));
  for (const entry of signedIn) {
    updateOAuthEntry(file, { name, url: entry.serverUrl }, (now = entry) => signedOut(now));
  }
  return signedIn.length;
}

/** Everything kept for `name`, its client secret too (for a server no longer configured). */
export function forgetOAuthServer(file: string, name: string): void {
  const all = readAll(file);
  for (const entry of Object.values(all)) if (entry.serverName === name) updateOAuthEntry(file, { name, url: entry.serverUrl }, () => undefined);
}

/** Keeps `secret` as the client secret of `server`'s configured client (`oauth.clientId`). */
export function saveClientSecret(file: string, server: McpOAuthServer, secret: string): void {
  updateOAuthEntry(file, server, (entry) => ({ ...(entry ?? { serverName: server.name, serverUrl: server.url }), clientSecret: secret }));
}
