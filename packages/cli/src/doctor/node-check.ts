// Node, and this Harness: its version and whether it starts from its startup bundle.
import { startedFromBundle } from "@harness/startup/from-bundle";
import { harnessVersion } from "../version.ts";
import { type Check, fail, ok } from "./check.ts";

/** The oldest Node the packages run on (type stripping, node:sqlite): see the root package.json. */
const NODE_MAJOR = 24;

export function nodeChecks(): Check[] {
  const major = Number(process.versions.node.split(".")[0]);
  const node = `${process.version} (${process.execPath})`;
  return [
    major >= NODE_MAJOR ? ok("node", node) : fail("node", node, `install Node ${NODE_MAJOR} or later and put it first on PATH`),
    ok("harness", `${harnessVersion()}, from ${startedFromBundle() === undefined ? "its sources (not its startup bundle)" : "its startup bundle"}`),
  ];
}
