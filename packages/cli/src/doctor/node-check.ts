// Node, and this Harness: its version and whether it starts from its startup bundle.
import { harnessVersion } from "../version.ts";
import { type Check, fail, ok } from "./check.ts";

/** The oldest Node the packages run on (type stripping, node:sqlite): see the root package.json. */
const NODE_MAJOR = 24;

export function nodeChecks(): Check[] {
  const major = Number(process.versions.node.split(".")[0]);
  const node = `${process.version} (${process.execPath})`;
  // Run from its sources, this module is a file of packages/cli/src; bundled, it is part of the bundle.
  const fromSources = import.meta.url.includes("/packages/cli/src/doctor/");
  return [
    major >= NODE_MAJOR ? ok("node", node) : fail("node", node, `install Node ${NODE_MAJOR} or later and put it first on PATH`),
    ok("harness", `${harnessVersion()}, from ${fromSources ? "its sources (not its startup bundle)" : "its startup bundle"}`),
  ];
}
