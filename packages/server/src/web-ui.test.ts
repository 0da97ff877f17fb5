import { test } from "node:test";
import assert from "node:assert/strict";
import { createHttpApp } from "./http-app.ts";
import type { WebUiBundle } from "./web-ui.ts";

const BUNDLE: WebUiBundle = { html: "<!doctype html><title>ui</title>", files: { "app-1.js": { contentType: "text/javascript; charset=utf-8", body: "1" } } };
const get = (app: ReturnType<typeof createHttpApp>, path: string, init: RequestInit = {}) => app.request(`http://127.0.0.1:7700${path}`, { headers: { host: "127.0.0.1:7700" }, ...init });

test("with a token, the page, its files and its config are served without it, and nothing else is", async () => {
  const app = createHttpApp({ token: "secret", webUi: { load: async () => BUNDLE, defaultUser: "ann" } });
  assert.equal((await get(app, "/")).status, 200);
  assert.equal((await get(app, "/", { method: "HEAD" })).status, 200);
  assert.equal(await (await get(app, "/ui/app-1.js")).text(), "1");
  assert.deepEqual(await (await get(app, "/ui/config.json")).json(), { tokenRequired: true }, "the user id is not told to whoever asks");
  assert.equal((await get(app, "/health")).status, 401);
  assert.equal((await get(app, "/", { method: "POST" })).status, 401, "only GET and HEAD pass");
  assert.equal((await get(app, "/ui/app-1.js/more")).status, 401);
});

test("without a token the config offers the default user, and a page of another site is refused as elsewhere", async () => {
  const app = createHttpApp({ token: undefined, webUi: { load: async () => BUNDLE, defaultUser: "ann" } });
  assert.deepEqual(await (await get(app, "/ui/config.json")).json(), { tokenRequired: false, defaultUser: "ann" });
  assert.equal((await app.request("http://evil.test/", { headers: { host: "evil.test" } })).status, 403);
});

test("a build that fails answers 500 naming why, and the next request builds again", async () => {
  let builds = 0;
  const app = createHttpApp({
    token: undefined,
    webUi: {
      load: async () => {
        if (++builds === 1) throw new Error("esbuild is not installed");
        return BUNDLE;
      },
    },
  });
  const failed = await get(app, "/");
  assert.equal(failed.status, 500);
  assert.match(((await failed.json()) as { error: string }).error, /the web UI could not be built: esbuild is not installed/);
  assert.equal((await get(app, "/")).status, 200);
  assert.equal((await get(app, "/ui/app-1.js")).status, 200);
  assert.equal(builds, 2, "built once after the failure");
  assert.equal((await get(app, "/ui/app-2.js")).status, 404);
});

test("a name of an object's own (constructor, __proto__, toString) is a file the page does not have: 404", async () => {
  const app = createHttpApp({ token: "secret", webUi: { load: async () => BUNDLE } });
  for (const name of ["constructor", "__proto__", "toString", "hasOwnProperty"]) {
    const answer = await get(app, `/ui/${name}`);
    assert.equal(answer.status, 404, name);
    assert.match(((await answer.json()) as { error: string }).error, /not found: GET \/ui\/.*reload it/);
  }
});

test("without the UI, GET / is the 404 it was", async () => {
  const app = createHttpApp({ token: undefined });
  assert.equal((await get(app, "/")).status, 404);
  assert.equal((await get(app, "/ui/config.json")).status, 404);
});
