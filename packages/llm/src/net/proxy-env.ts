// The proxy a run's requests go through: HTTPS_PROXY for https:// URLs, HTTP_PROXY for http://
// ones, ALL_PROXY for either when its own is unset (curl's rule), NO_PROXY for the hosts that skip
// it; each also in lower case, which wins when both are set (as Node, curl and Claude Code read them). Node's own agents (`proxyEnv`, Node 24.5+) do the
// proxying; this module checks the values first, because Node quietly goes direct with a value it
// cannot use ("proxy:3128" without a scheme, "socks5://…"), which on a network that only lets the
// proxy out looks like a hang or a refused connection far from its cause.
//
// NO_PROXY is Node's: a comma-separated list of `*` (every host), a host name or IP address
// matched exactly, `host:port`, `.example.com` or `*.example.com` (the domain and every name under
// it) and IPv4 ranges `10.0.0.0-10.0.0.255`. A plain `example.com` matches that name only, not its
// subdomains; loopback is proxied like any other host unless listed (`localhost,127.0.0.1`).
import type { EnvLike } from "../settings.ts";
import { tlsProblem } from "./tls-env.ts";

export type ProxyEnv = { HTTPS_PROXY?: string; HTTP_PROXY?: string; NO_PROXY?: string };

export type ProxyEnvResult = { ok: true; value: ProxyEnv } | { ok: false; error: string };

const PROXY_VARIABLES = ["HTTPS_PROXY", "HTTP_PROXY"] as const;

/** The proxy settings of `env`, checked: a set proxy variable must be an http:// or https:// URL
 * with a host (ALL_PROXY only where it is used). The error names the variable and never shows the credentials in its value. */
export function proxyEnvOf(env: EnvLike): ProxyEnvResult {
  const value: ProxyEnv = {};
  for (const upper of PROXY_VARIABLES) {
    const found = setting(env, upper);
    if (found === undefined) continue;
    const problem = proxyUrlProblem(found.value);
    if (problem !== undefined) return { ok: false, error: unusable(found, problem) };
    value[upper] = found.value;
  }
  if (value.HTTPS_PROXY === undefined || value.HTTP_PROXY === undefined) {
    const all = setting(env, "ALL_PROXY");
    if (all !== undefined) {
      const problem = proxyUrlProblem(all.value);
      if (problem !== undefined) return { ok: false, error: unusable(all, problem) };
      value.HTTPS_PROXY ??= all.value;
      value.HTTP_PROXY ??= all.value;
    }
  }
  const noProxy = setting(env, "NO_PROXY");
  if (noProxy !== undefined) value.NO_PROXY = noProxy.value;
  return { ok: true, value };
}

/** Why the network variables of `env` cannot be used, or undefined when they can (or none is set):
 * the proxy variables, then the TLS ones (tls-env.ts: NODE_EXTRA_CA_CERTS, the client certificate),
 * all of which fetchFor(env) applies. */
export function networkProblem(env: EnvLike): string | undefined {
  const checked = proxyEnvOf(env);
  return checked.ok ? tlsProblem(env) : checked.error;
}

function unusable(found: { name: string; value: string }, problem: string): string {
  return `${found.name} is not a usable proxy URL (${shown(found.value)}): ${problem}`;
}

/** The lower-case variable when it is set and not blank, else the upper-case one. */
function setting(env: EnvLike, upper: string): { name: string; value: string } | undefined {
  for (const name of [upper.toLowerCase(), upper]) {
    const value = env[name]?.trim();
    if (value) return { name, value };
  }
  return undefined;
}

function proxyUrlProblem(value: string): string | undefined {
  if (/[\r\n]/.test(value)) return "it holds a line break";
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return "give a URL such as http://proxy.example.com:3128";
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    // "proxy.example.com:3128" parses with "proxy.example.com:" as its scheme.
    return /^[a-z][a-z0-9+.-]*:\/\//i.test(value)
      ? `only http:// and https:// proxies are supported, not ${url.protocol}//`
      : "it needs its scheme, as in http://proxy.example.com:3128";
  }
  if (url.hostname === "") return "it names no host";
  return undefined;
}

/** The value as it may be shown: any user name and password replaced by "***". */
function shown(value: string): string {
  const at = value.lastIndexOf("@");
  if (at === -1) return value;
  const scheme = /^[a-z][a-z0-9+.-]*:\/\//i.exec(value)?.[0] ?? "";
  return `${scheme}***@${value.slice(at + 1)}`;
}
