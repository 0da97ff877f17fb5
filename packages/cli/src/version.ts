// The version of harness: the cli package's own.
import { readFileSync } from "node:fs";

export function harnessVersion(): string {
  return (JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8")) as { version: string }).version;
}
