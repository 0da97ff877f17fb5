// A scraper's view of GET /metrics for the end-to-end tests: a strict parser of the Prometheus text
// format (0.0.4), a scrape that checks the answer's type, and the values a test compares; and the
// bare WebSocket handshake some tests send over TCP.
import assert from "node:assert/strict";

export type Sample = { name: string; labels: Record<string, string>; value: number };
export type Scrape = { samples: Sample[]; types: Map<string, string>; text: string };

const NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/;
const SAMPLE = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/;

/** The family a sample belongs to: a summary's _sum and _count are its family's. */
function familyOf(name: string, types: Map<string, string>): string | undefined {
  if (types.has(name)) return name;
  const base = name.replace(/_(sum|count)$/, "");
  return types.get(base) === "summary" ? base : undefined;
}

/** The labels between a sample's braces, each value with its escapes (\\, \", \n) undone; throws on
 * anything else. */
function parseLabels(text: string, line: string): Record<string, string> {
  const labels: Record<string, string> = {};
  let at = 0;
  while (at < text.length) {
    const m = /^([a-zA-Z_][a-zA-Z0-9_]*)="/.exec(text.slice(at));
    if (!m) throw new Error(`bad label at ${at} in: ${line}`);
    at += m[0].length;
    let value = "";
    for (;;) {
      const c = text[at++];
      if (c === undefined) throw new Error(`unterminated label value in: ${line}`);
      if (c === '"') break;
      if (c === "\n") throw new Error(`raw newline in a label value: ${line}`);
      if (c === "\\") {
        const e = text[at++];
        if (e === "\\" || e === '"') value += e;
        else if (e === "n") value += "\n";
        else throw new Error(`bad escape \\${e} in: ${line}`);
      } else value += c;
    }
    if (m[1] in labels) throw new Error(`label ${m[1]} twice in: ${line}`);
    labels[m[1]] = value;
    if (at < text.length) {
      if (text[at] !== ",") throw new Error(`expected a comma at ${at} in: ${line}`);
      at++;
    }
  }
  return labels;
}

/** A strict reading of the text exposition format: every family has HELP then TYPE before its
 * samples, once; counters end in _total; values are numbers; no sample repeats its labels. */
export function parseExposition(text: string): Scrape {
  assert.ok(text.endsWith("\n"), "the text ends with a newline");
  const types = new Map<string, string>();
  const helped = new Set<string>();
  const samples: Sample[] = [];
  const seen = new Set<string>();
  for (const line of text.slice(0, -1).split("\n")) {
    assert.notEqual(line, "", "no blank lines");
    const comment = /^# (HELP|TYPE) (\S+) (.+)$/.exec(line);
    if (comment) {
      const [, kind, name, rest] = comment;
      assert.match(name, NAME, line);
      if (kind === "HELP") {
        assert.ok(!helped.has(name), `HELP of ${name} once`);
        assert.doesNotMatch(rest.replace(/\\[\\n]/g, ""), /\\/, `HELP escapes only \\\\ and \\n: ${line}`);
        helped.add(name);
      } else {
        assert.ok(helped.has(name), `HELP of ${name} before its TYPE`);
        assert.ok(!types.has(name), `TYPE of ${name} once`);
        assert.ok(["counter", "gauge", "summary", "histogram", "untyped"].includes(rest), line);
        if (rest === "counter") assert.match(name, /_total$/, `counter ${name} ends in _total`);
        types.set(name, rest);
      }
      continue;
    }
    assert.ok(!line.startsWith("#"), `only HELP and TYPE comments: ${line}`);
    const m = SAMPLE.exec(line);
    assert.ok(m, `a sample line: ${line}`);
    const [, name, labelText, valueText] = m;
    const family = familyOf(name, types);
    assert.ok(family, `${name} has a TYPE before it`);
    assert.ok(/^([+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?|NaN|[+-]Inf)$/.test(valueText), `a number: ${line}`);
    const labels = labelText ? parseLabels(labelText, line) : {};
    if (types.get(family) === "summary" && name === family) assert.ok("quantile" in labels, `a summary's sample has a quantile: ${line}`);
    const key = `${name}${JSON.stringify(Object.entries(labels).sort())}`;
    assert.ok(!seen.has(key), `one sample of ${key}`);
    seen.add(key);
    samples.push({ name, labels, value: Number(valueText) });
  }
  return { samples, types, text };
}

export async function scrape(url: string, headers: Record<string, string> = {}): Promise<Scrape> {
  const res = await fetch(`${url}/metrics`, { headers });
  assert.equal(res.status, 200);
  assert.equal(res.headers.get("content-type"), "text/plain; version=0.0.4; charset=utf-8");
  return parseExposition(await res.text());
}

/** The value of `name` with exactly `labels` (0 when absent: a counter not yet counted). */
export function value(s: Scrape, name: string, labels: Record<string, string> = {}): number {
  const want = JSON.stringify(Object.entries(labels).sort());
  return s.samples.find((x) => x.name === name && JSON.stringify(Object.entries(x.labels).sort()) === want)?.value ?? 0;
}

/** A WebSocket handshake as sent over a bare TCP socket, `headers` over the usual ones. */
export function upgrade(path: string, headers: Record<string, string> = {}): string {
  const all = { host: "127.0.0.1", connection: "Upgrade", upgrade: "websocket", "sec-websocket-key": "dGhlIHNhbXBsZSBub25jZQ==", "sec-websocket-version": "13", ...headers };
  return `GET ${path} HTTP/1.1\r\n${Object.entries(all).map(([k, v]) => `${k}: ${v}\r\n`).join("")}\r\n`;
}

export const moved = (before: Scrape, after: Scrape, name: string, labels: Record<string, string> = {}) => value(after, name, labels) - value(before, name, labels);
