// What the end-to-end tests that start servers against one fake Anthropic server share: the fake,
// started before the file's tests and closed after them; data directories of their own, removed
// after the file; and the environment that points a server at the fake.
import { after, before } from "node:test";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startFakeAnthropic, type FakeAnthropic } from "@harness/test-utils";

/** Registers the file's before and after hooks; `prefix` names its data directories. */
export function fakeModelForFile(prefix: string) {
  let started: FakeAnthropic | undefined;
  const dirs: string[] = [];
  before(async () => {
    started = await startFakeAnthropic();
  });
  after(async () => {
    await started?.close();
    await Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true })));
  });
  const fake = (): FakeAnthropic => {
    if (!started) throw new Error("the fake model is started before the file's tests, not while the file loads");
    return started;
  };
  return {
    fake,
    newDataDir: async () => {
      const dir = await mkdtemp(join(tmpdir(), prefix));
      dirs.push(dir);
      return dir;
    },
    modelEnv: () => ({ ANTHROPIC_API_KEY: "test-key", ANTHROPIC_BASE_URL: fake().url }),
  };
}
