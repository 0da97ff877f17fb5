import { test } from "node:test";
import assert from "node:assert/strict";
import { ACME, registryApp } from "./registry-test-app.ts";

test("a harness registered is answered in the spec's shape, listed after this one, filtered and paged, and read by id", async (t) => {
  const { call } = await registryApp(t);
  const made = await call("POST", "/harnesses", ACME);
  assert.equal(made.status, 201);
  const { harness } = made.json;
  assert.equal(harness.id, "acme-cloud");
  assert.equal(harness.name, "Acme Cloud");
  assert.equal(harness.vendor, "Acme");
  assert.equal(harness.description, "Acme's hosted agents");
  assert.equal(harness.execution_type, "hosted");
  assert.equal(harness.status, "active");
  assert.deepEqual(harness.capabilities, {}, "unknown until asked");
  assert.deepEqual(harness.config, { base_url: "https://agents.acme.example/v1" });
  assert.ok(!Number.isNaN(Date.parse(harness.created_at)));
  assert.equal(harness.updated_at, harness.created_at);

  await call("POST", "/harnesses", { ...ACME, id: "local-cli", name: "Local CLI", execution_type: "sdk", config: { binary_path: "/usr/bin/true" } });
  const all = (await call("GET", "/harnesses")).json;
  assert.deepEqual(all.data.map((h: { id: string }) => h.id), ["harness", "acme-cloud", "local-cli"]);
  assert.equal(all.total, 3);
  assert.deepEqual((await call("GET", "/harnesses?execution_type=sdk")).json.data.map((h: { id: string }) => h.id), ["local-cli"]);
  assert.deepEqual((await call("GET", "/harnesses?status=active")).json.data.map((h: { id: string }) => h.id), ["acme-cloud", "local-cli"]);
  const second = (await call("GET", "/harnesses?limit=1&offset=1")).json;
  assert.deepEqual([second.data.map((h: { id: string }) => h.id), second.total, second.has_more], [["acme-cloud"], 3, true]);
  assert.deepEqual((await call("GET", "/harnesses/acme-cloud")).json.harness, harness);
  assert.equal((await call("GET", "/harnesses/nope")).json.error.code, "harness_not_found");
});

test("update changes what it is given (config in part), keeps the rest and the creation time; unregister forgets it", async (t) => {
  const { call } = await registryApp(t);
  const { harness: made } = (await call("POST", "/harnesses", { ...ACME, config: { base_url: "https://agents.acme.example/v1", skills_path: "/srv/acme/skills" } })).json;
  await new Promise((resolve) => setTimeout(resolve, 5));
  const changed = await call("PATCH", "/harnesses/acme-cloud", { name: "Acme Cloud EU", status: "maintenance", config: { base_url: "https://eu.acme.example/v1" } });
  assert.equal(changed.status, 200);
  const { harness } = changed.json;
  assert.equal(harness.name, "Acme Cloud EU");
  assert.equal(harness.status, "maintenance");
  assert.equal(harness.description, "Acme's hosted agents");
  assert.deepEqual(harness.config, { base_url: "https://eu.acme.example/v1", skills_path: "/srv/acme/skills" });
  assert.equal(harness.created_at, made.created_at);
  assert.ok(harness.updated_at > made.updated_at);
  const cleared = (await call("PATCH", "/harnesses/acme-cloud", { config: { skills_path: null } })).json.harness;
  assert.deepEqual(cleared.config, { base_url: "https://eu.acme.example/v1" }, "a null drops a config key");
  assert.deepEqual((await call("GET", "/harnesses/acme-cloud")).json.harness, cleared);

  const gone = await call("DELETE", "/harnesses/acme-cloud");
  assert.equal(gone.status, 204);
  assert.equal((await call("GET", "/harnesses/acme-cloud")).status, 404);
  assert.equal((await call("DELETE", "/harnesses/acme-cloud")).json.error.code, "harness_not_found");
  assert.equal((await call("PATCH", "/harnesses/acme-cloud", { name: "x" })).status, 404);
  assert.equal((await call("POST", "/harnesses", ACME)).status, 201, "its id is free again");
});

test("bad input is refused 400 naming the field; an id registered already 409", async (t) => {
  const { call } = await registryApp(t);
  const refused = async (body: unknown, pattern: RegExp, method = "POST", path = "/harnesses") => {
    const answer = await call(method, path, body);
    assert.equal(answer.status, 400, `${JSON.stringify(body)}: ${JSON.stringify(answer.json)}`);
    assert.equal(answer.json.error.code, "invalid_request");
    assert.match(answer.json.error.message, pattern);
  };
  await refused({ ...ACME, id: "Acme_Cloud" }, /id.*kebab-case/);
  await refused({ ...ACME, id: "-acme" }, /id.*kebab-case/);
  await refused({ ...ACME, id: "a".repeat(101) }, /id/);
  await refused({ ...ACME, name: "" }, /name/);
  await refused({ ...ACME, name: "n".repeat(101) }, /name.*100/);
  await refused({ ...ACME, vendor: "v".repeat(101) }, /vendor.*100/);
  await refused({ ...ACME, description: "d".repeat(1001) }, /description.*1000/);
  await refused({ ...ACME, execution_type: "cloud" }, /execution_type/);
  await refused({ ...ACME, vendor: undefined }, /vendor/);
  await refused({ ...ACME, config: { base_url: "ftp://acme.example" } }, /base_url.*http/);
  await refused({ ...ACME, config: { base_url: "agents.acme.example" } }, /base_url/);
  await refused({ ...ACME, config: { base_url: "https://me:secret@acme.example/v1" } }, /base_url.*credentials/);
  await refused({ ...ACME, config: { binary_path: "bin/acme" } }, /binary_path.*absolute/);
  await refused({ ...ACME, config: { skills_path: "/a\u0000b" } }, /skills_path/);
  await refused({ ...ACME, colour: "red" }, /colour/);
  await refused({ ...ACME, config: { region: "eu" } }, /region/);
  await refused({ ...ACME, status: "active" }, /status/);
  await refused("[1]", /body/);
  await call("POST", "/harnesses", ACME);
  await refused({ status: "retired" }, /status/, "PATCH", "/harnesses/acme-cloud");
  await refused({ vendor: "Other" }, /vendor/, "PATCH", "/harnesses/acme-cloud");
  await refused({ config: { base_url: "javascript:alert(1)" } }, /base_url/, "PATCH", "/harnesses/acme-cloud");
  const again = await call("POST", "/harnesses", { ...ACME, name: "Another" });
  assert.equal(again.status, 409);
  assert.match(again.json.error.message, /acme-cloud.*already registered/);
  assert.equal((await call("GET", "/harnesses/acme-cloud")).json.harness.name, "Acme Cloud", "the first registration is kept");
});

test("this server's own harness cannot be registered over, changed or unregistered, and says why", async (t) => {
  const { call } = await registryApp(t);
  const over = await call("POST", "/harnesses", { ...ACME, id: "harness" });
  assert.equal(over.status, 409);
  assert.match(over.json.error.message, /"harness" is this server's own/);
  for (const [method, body] of [["PATCH", { name: "Mine" }], ["DELETE", undefined]] as const) {
    const answer = await call(method, "/harnesses/harness", body);
    assert.equal(answer.status, 403, method);
    assert.equal(answer.json.error.code, "forbidden");
    assert.match(answer.json.error.message, /this server's own harness/);
  }
  assert.equal((await call("GET", "/harnesses/harness")).json.harness.name, "Harness");
});

test("the registry is changed by the administrator's token (or without tokens), read by anyone's", async (t) => {
  const { call } = await registryApp(t);
  const asAnn = { "x-test-user": "ann" };
  for (const [method, path, body] of [["POST", "/harnesses", ACME], ["PATCH", "/harnesses/acme-cloud", { name: "x" }], ["DELETE", "/harnesses/acme-cloud", undefined]] as const) {
    if (method !== "POST") await call("POST", "/harnesses", ACME);
    const answer = await call(method, path, body, asAnn);
    assert.equal(answer.status, 403, method);
    assert.match(answer.json.error.message, /administrator.*HARNESS_TOKEN/);
  }
  assert.equal((await call("GET", "/harnesses/acme-cloud", undefined, asAnn)).json.harness.name, "Acme Cloud", "read, unchanged");
  assert.equal((await call("GET", "/harnesses", undefined, asAnn)).json.total, 2);
});

test("another domain's operation under a registered harness is refused 421 naming where it is served, not 404", async (t) => {
  const { call } = await registryApp(t);
  await call("POST", "/harnesses", ACME);
  for (const path of ["/harnesses/acme-cloud/agents", "/harnesses/acme-cloud/sessions/s1/messages"]) {
    const answer = await call("GET", path);
    assert.equal(answer.status, 421, path);
    assert.equal(answer.json.error.code, "misdirected_request");
    assert.match(answer.json.error.message, /acme-cloud.*https:\/\/agents\.acme\.example\/v1/);
  }
  await call("POST", "/harnesses", { ...ACME, id: "local-cli", execution_type: "sdk", config: { binary_path: "/usr/local/bin/acme" } });
  const sdk = await call("POST", "/harnesses/local-cli/validate-credentials", {});
  assert.equal(sdk.status, 421);
  assert.match(sdk.json.error.message, /local-cli.*sdk/);
  assert.equal((await call("GET", "/harnesses/nope/agents")).status, 404);
  assert.deepEqual((await call("GET", "/harnesses/harness/agents")).json, { data: [] });
});
