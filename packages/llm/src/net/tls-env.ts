// The TLS of a run's requests, from its environment as Claude Code reads it (settings files' `env`
// included, which is why the process's own start-up reading is not enough):
// - NODE_EXTRA_CA_CERTS: a PEM file of certificate authorities trusted on top of Node's own, as a
//   corporate proxy that inspects TLS or a gateway with a certificate of the company's own needs.
//   Node reads the variable once, as the process starts; a run's environment may name another file
//   (or one only its settings name), so the file is loaded into the run's https agent here.
// - CLAUDE_CODE_CLIENT_CERT, CLAUDE_CODE_CLIENT_KEY (PEM files) and CLAUDE_CODE_CLIENT_KEY_PASSPHRASE
//   (for an encrypted key): the client certificate presented to servers that ask for one (mutual TLS).
// Each file is read once per change (its size and modification time), and a set that cannot be used
// is an error naming the variable, said before any request is made rather than as a failed handshake.
import { createHash } from "node:crypto";
import { readFileSync, statSync } from "node:fs";
import { createSecureContext, getCACertificates } from "node:tls";
import { RecentCache } from "./recent-cache.ts";
import type { EnvLike } from "../settings.ts";

/** Options for the run's https agent (none set: Node's defaults). `id` differs whenever they do. */
export type TlsEnv = { ca?: string[]; cert?: Buffer; key?: Buffer; passphrase?: string; extraCaFile?: string; id: string };

export type TlsEnvResult = { ok: true; value: TlsEnv } | { ok: false; error: string };

const CERTIFICATE = /-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g;

/** The checked results, by the variables' values and the files' stamps: the newest few, as each
 * change of a file is a new entry. */
const results = new RecentCache<string, TlsEnvResult>(16);

/** The TLS options `env` asks for, checked and with its files read. */
export function tlsEnvOf(env: EnvLike): TlsEnvResult {
  const caFile = setting(env, "NODE_EXTRA_CA_CERTS");
  const certFile = setting(env, "CLAUDE_CODE_CLIENT_CERT");
  const keyFile = setting(env, "CLAUDE_CODE_CLIENT_KEY");
  const passphrase = env.CLAUDE_CODE_CLIENT_KEY_PASSPHRASE || undefined;
  if (certFile && !keyFile) return { ok: false, error: "CLAUDE_CODE_CLIENT_CERT is set without CLAUDE_CODE_CLIENT_KEY, the file of its private key" };
  if (keyFile && !certFile) return { ok: false, error: "CLAUDE_CODE_CLIENT_KEY is set without CLAUDE_CODE_CLIENT_CERT, the file of the client certificate" };
  const stamps: string[] = [];
  for (const [name, file] of [["NODE_EXTRA_CA_CERTS", caFile], ["CLAUDE_CODE_CLIENT_CERT", certFile], ["CLAUDE_CODE_CLIENT_KEY", keyFile]] as const) {
    if (file === undefined) continue;
    const stamp = stampOf(name, file);
    if (!stamp.ok) return stamp;
    stamps.push(stamp.value);
  }
  if (stamps.length === 0) return { ok: true, value: { id: "" } };
  const id = createHash("sha256").update(JSON.stringify([caFile, certFile, keyFile, passphrase, stamps])).digest("hex");
  let found = results.get(id);
  if (!found) {
    found = read(id, caFile, certFile, keyFile, passphrase);
    results.set(id, found);
  }
  return found;
}

/** Why the TLS variables of `env` cannot be used, or undefined when they can (or none is set). */
export function tlsProblem(env: EnvLike): string | undefined {
  const checked = tlsEnvOf(env);
  return checked.ok ? undefined : checked.error;
}

function read(id: string, caFile: string | undefined, certFile: string | undefined, keyFile: string | undefined, passphrase: string | undefined): TlsEnvResult {
  const value: TlsEnv = { id };
  if (caFile !== undefined) {
    const text = readText("NODE_EXTRA_CA_CERTS", caFile);
    if (!text.ok) return text;
    const added = text.value.match(CERTIFICATE);
    if (!added) return { ok: false, error: `NODE_EXTRA_CA_CERTS (${caFile}) holds no certificate (PEM)` };
    // Added to what this process trusts already, never instead: Node's bundled roots, and whatever
    // it was started with (its own NODE_EXTRA_CA_CERTS, the system's store with --use-system-ca).
    value.ca = [...new Set([...getCACertificates("default"), ...added])];
    value.extraCaFile = caFile;
  }
  if (certFile !== undefined && keyFile !== undefined) {
    const cert = readText("CLAUDE_CODE_CLIENT_CERT", certFile);
    if (!cert.ok) return cert;
    if (!cert.value.match(CERTIFICATE)) return { ok: false, error: `CLAUDE_CODE_CLIENT_CERT (${certFile}) holds no certificate (PEM)` };
    const key = readText("CLAUDE_CODE_CLIENT_KEY", keyFile);
    if (!key.ok) return key;
    try {
      // Tried here, once: a key that does not open or does not match would otherwise fail each
      // handshake with OpenSSL's words.
      createSecureContext({ cert: cert.value, key: key.value, ...(passphrase !== undefined && { passphrase }) });
    } catch (error) {
      const encrypted = /ENCRYPTED/.test(key.value);
      const hint = encrypted ? (passphrase === undefined ? " (the key is encrypted: give its passphrase in CLAUDE_CODE_CLIENT_KEY_PASSPHRASE)" : " (is CLAUDE_CODE_CLIENT_KEY_PASSPHRASE the key's passphrase?)") : "";
      return { ok: false, error: `CLAUDE_CODE_CLIENT_KEY (${keyFile}) cannot be used with CLAUDE_CODE_CLIENT_CERT: ${reasonOf(error)}${hint}` };
    }
    value.cert = Buffer.from(cert.value);
    value.key = Buffer.from(key.value);
    if (passphrase !== undefined) value.passphrase = passphrase;
  }
  return { ok: true, value };
}

/** The file's size and modification time, which change when it does. */
function stampOf(name: string, file: string): { ok: true; value: string } | { ok: false; error: string } {
  try {
    const stat = statSync(file);
    if (stat.isDirectory()) return { ok: false, error: `${name} names a directory, not a file (${file})` };
    return { ok: true, value: `${stat.size}:${stat.mtimeMs}:${stat.ino}` };
  } catch (error) {
    return { ok: false, error: `${name} names a file that cannot be read (${file}): ${reasonOf(error)}` };
  }
}

function readText(name: string, file: string): { ok: true; value: string } | { ok: false; error: string } {
  try {
    return { ok: true, value: readFileSync(file, "utf8") };
  } catch (error) {
    return { ok: false, error: `${name} names a file that cannot be read (${file}): ${reasonOf(error)}` };
  }
}

function reasonOf(error: unknown): string {
  const code = (error as NodeJS.ErrnoException).code;
  if (code === "ENOENT") return "there is no such file";
  if (code === "EACCES" || code === "EPERM") return "permission denied";
  return String((error as Error).message);
}

function setting(env: EnvLike, name: string): string | undefined {
  return env[name]?.trim() || undefined;
}
