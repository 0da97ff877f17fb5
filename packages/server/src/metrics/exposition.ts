// The Prometheus text exposition format, version 0.0.4: each family's HELP and TYPE lines, then its
// samples, label values escaped. Written at scrape time from plain numbers.

export const EXPOSITION_CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8";

export type Sample = { labels?: Readonly<Record<string, string>>; value: number; /** Appended to the family's name (a summary's "_sum"). */ suffix?: string };

/** One metric family. A counter's name ends in `_total`; names and label names are Prometheus's
 * (letters, digits, underscores, not starting with a digit). */
export type Family = { name: string; help: string; type: "counter" | "gauge" | "summary"; samples: readonly Sample[] };

const NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/;
const LABEL = /^[a-zA-Z_][a-zA-Z0-9_]*$/;

/** `values` (label value → count) as samples labelled `label`. */
export function byLabel(label: string, values: ReadonlyMap<string, number>): Sample[] {
  return [...values].map(([value, count]) => ({ labels: { [label]: value }, value: count }));
}

/** The families as exposition text; throws on a name the format does not take (a bug here, not
 * an outside input: label values are escaped, never refused). */
export function exposition(families: readonly Family[]): string {
  let out = "";
  for (const family of families) {
    if (!NAME.test(family.name)) throw new Error(`not a metric name: ${family.name}`);
    if (family.type === "counter" && !family.name.endsWith("_total")) throw new Error(`a counter's name ends in _total: ${family.name}`);
    out += `# HELP ${family.name} ${family.help.replace(/\\/g, "\\\\").replace(/\n/g, "\\n")}\n`;
    out += `# TYPE ${family.name} ${family.type}\n`;
    for (const sample of family.samples) out += `${family.name}${sample.suffix ?? ""}${labelText(sample.labels)} ${numberText(sample.value)}\n`;
  }
  return out;
}

function labelText(labels: Readonly<Record<string, string>> | undefined): string {
  if (!labels) return "";
  const pairs = Object.entries(labels).map(([name, value]) => {
    if (!LABEL.test(name)) throw new Error(`not a label name: ${name}`);
    return `${name}="${value.replace(/\\/g, "\\\\").replace(/"/g, '\\"').replace(/\n/g, "\\n")}"`;
  });
  return pairs.length === 0 ? "" : `{${pairs.join(",")}}`;
}

function numberText(value: number): string {
  if (Number.isNaN(value)) return "NaN";
  if (value === Infinity) return "+Inf";
  if (value === -Infinity) return "-Inf";
  return String(value);
}
