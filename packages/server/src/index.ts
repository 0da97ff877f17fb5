export { startServer } from "./server.ts";
export type { HarnessServer } from "./server.ts";
export type { ServerOptions } from "./config.ts";
export type { RunnerFactory, SessionRunner } from "./registry.ts";
export { openSqliteDatabase, KEPT_BATCHES } from "./sqlite-store.ts";
export type { SqliteDatabase, SqliteSessionStore } from "./sqlite-store.ts";
export { createSupervisedRunner } from "./supervisor.ts";
export type { SupervisedRunner, SupervisorOptions } from "./supervisor.ts";
export { WS_MAX_PAYLOAD } from "./websocket.ts";
