// Server options from the environment: sessions per runner process, the web pages let in without a token.
import { test } from "node:test";
import assert from "node:assert/strict";
import { DEFAULT_SESSIONS_PER_RUNNER, resolveConfig } from "./config.ts";
import { createRunnerPool } from "./runner-pool.ts";

test("sessions per runner process: default, from the environment, from the options", () => {
  assert.equal(resolveConfig({ env: {} }).runnerSessionsPerProcess, DEFAULT_SESSIONS_PER_RUNNER);
  assert.equal(resolveConfig({ env: { HARNESS_RUNNER_SESSIONS_PER_PROCESS: "1" } }).runnerSessionsPerProcess, 1);
  assert.equal(resolveConfig({ env: { HARNESS_RUNNER_SESSIONS_PER_PROCESS: "7" }, runnerSessionsPerProcess: 3 }).runnerSessionsPerProcess, 3);
});

test("a bad number of sessions per runner process is refused with a message naming it", () => {
  for (const bad of ["0", "-2", "1.5", "many", "10001"]) {
    assert.throws(() => resolveConfig({ env: { HARNESS_RUNNER_SESSIONS_PER_PROCESS: bad } }), /invalid server options: .*runnerSessionsPerProcess/, bad);
  }
  assert.throws(() => createRunnerPool({ env: {}, capacity: 0, dir: "/tmp", idleExitMs: 1, log: () => {} }), /runner capacity must be a positive integer, got 0/);
});

test("allowed origins come from the options or HARNESS_ALLOWED_ORIGINS, and must be origins", () => {
  assert.deepEqual([...resolveConfig({ env: {} }).allowedOrigins], []);
  assert.deepEqual([...resolveConfig({ env: { HARNESS_ALLOWED_ORIGINS: "https://a.example, http://b.example:8080" } }).allowedOrigins], ["https://a.example", "http://b.example:8080"]);
  assert.deepEqual([...resolveConfig({ env: { HARNESS_ALLOWED_ORIGINS: "https://a.example" }, allowedOrigins: ["https://c.example"] }).allowedOrigins], ["https://c.example"]);
  for (const bad of ["https://a.example/", "a.example", "ftp://a.example", "https://a.example/ui"]) {
    assert.throws(() => resolveConfig({ env: { HARNESS_ALLOWED_ORIGINS: bad } }), /allowedOrigins\.0: allowed origins must each be an origin/, bad);
  }
});
