// The harnesses registered with this server's Open Harness registry (open-harness/harness-registry.ts):
// a row each, the server's (shared by its users, not kept per user). Written and read by the server's
// thread.
import type { DatabaseSync } from "node:sqlite";
import { writing } from "./locked.ts";

export type ExecutionType = "hosted" | "sdk" | "ide";
export type HarnessStatus = "active" | "beta" | "coming_soon" | "maintenance" | "deprecated";

/** Where a registered harness is found: its API (hosted), its executable and skills (sdk, ide). */
export type HarnessConfig = { base_url?: string; binary_path?: string; skills_path?: string };

export type RegisteredHarness = {
  id: string;
  name: string;
  vendor: string;
  description: string;
  executionType: ExecutionType;
  status: HarnessStatus;
  config: HarnessConfig;
  /** Its capability manifest and version as the harness itself last answered them; absent until asked. */
  capabilities?: Record<string, unknown>;
  version?: string;
  /** ISO 8601. */
  createdAt: string;
  updatedAt: string;
};

export type RegisteredHarnessStore = {
  /** Every registered harness, the earliest registered first. */
  list(): RegisteredHarness[];
  get(id: string): RegisteredHarness | undefined;
  count(): number;
  /** Keeps `harness` unless its id is registered already (then false). Throws DatabaseLockedError
   * while another process holds the file's lock, as every write here does. */
  add(harness: RegisteredHarness): boolean;
  /** Replaces the registered harness of `harness.id` (false when there is none). */
  replace(harness: RegisteredHarness): boolean;
  /** Forgets the harness `id` (false when it was not registered). */
  remove(id: string): boolean;
};

type Row = { harness_id: string; record: string };

/** A row whose record does not read as JSON (a damaged file) reads as absent; it can still be removed. */
function harnessOf(row: Row | undefined): RegisteredHarness | undefined {
  if (!row) return undefined;
  try {
    return { ...(JSON.parse(row.record) as Omit<RegisteredHarness, "id">), id: row.harness_id };
  } catch {
    return undefined;
  }
}

export function createRegisteredHarnessStore(db: DatabaseSync): RegisteredHarnessStore {
  const list = db.prepare("SELECT harness_id, record FROM registered_harnesses ORDER BY created_at, rowid");
  const get = db.prepare("SELECT harness_id, record FROM registered_harnesses WHERE harness_id = ?");
  const count = db.prepare("SELECT COUNT(*) AS n FROM registered_harnesses");
  const insert = db.prepare("INSERT INTO registered_harnesses (harness_id, record, created_at) VALUES (?, ?, ?) ON CONFLICT (harness_id) DO NOTHING");
  const update = db.prepare("UPDATE registered_harnesses SET record = ? WHERE harness_id = ?");
  const remove = db.prepare("DELETE FROM registered_harnesses WHERE harness_id = ?");
  const recordOf = ({ id: _id, ...rest }: RegisteredHarness) => JSON.stringify(rest);
  return {
    list: () => (list.all() as unknown as Row[]).map(harnessOf).filter((h) => h !== undefined),
    get: (id) => harnessOf(get.get(id) as Row | undefined),
    count: () => (count.get() as { n: number }).n,
    add: (harness) => writing(() => insert.run(harness.id, recordOf(harness), Date.parse(harness.createdAt)).changes > 0),
    replace: (harness) => writing(() => update.run(recordOf(harness), harness.id).changes > 0),
    remove: (id) => writing(() => remove.run(id).changes > 0),
  };
}
