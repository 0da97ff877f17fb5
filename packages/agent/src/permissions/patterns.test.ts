import assert from "node:assert/strict";
import { test } from "node:test";
import { compileCommandPattern } from "./command-pattern.ts";
import { compilePathPattern } from "./path-pattern.ts";

const dirs = { root: "/proj", cwd: "/proj/sub", home: "/home/u" };
const matches = (pattern: string, target: string) => compilePathPattern(pattern, dirs)(target);

test("path pattern prefixes pick the base directory", () => {
  assert.ok(matches("//etc/hosts", "/etc/hosts"));
  assert.ok(matches("~/.ssh/id_rsa", "/home/u/.ssh/id_rsa"));
  assert.ok(matches("/src/a.ts", "/proj/src/a.ts"));
  assert.ok(!matches("/src/a.ts", "/proj/sub/src/a.ts"));
  assert.ok(matches("./src/a.ts", "/proj/sub/src/a.ts"));
  assert.ok(matches("src/a.ts", "/proj/sub/src/a.ts"));
  assert.ok(matches("../other/**", "/proj/other/x/y"));
});

test("gitignore anchoring: a slash anchors, a bare name matches at any depth", () => {
  assert.ok(matches(".env", "/proj/sub/deep/.env"));
  assert.ok(matches("*.pem", "/proj/sub/a/b/key.pem"));
  assert.ok(!matches("src/*.ts", "/proj/sub/lib/src/a.ts"));
  assert.ok(!matches("*.pem", "/proj/elsewhere/key.pem"));
});

test("*, ** and ? follow gitignore", () => {
  assert.ok(matches("src/*.ts", "/proj/sub/src/a.ts"));
  assert.ok(!matches("src/*.ts", "/proj/sub/src/deep/a.ts"));
  assert.ok(matches("src/**/*.ts", "/proj/sub/src/deep/er/a.ts"));
  assert.ok(matches("src/**/*.ts", "/proj/sub/src/a.ts"));
  assert.ok(matches("**/secrets/**", "/proj/sub/a/secrets/b/c"));
  assert.ok(matches("file?.txt", "/proj/sub/file1.txt"));
  assert.ok(!matches("file?.txt", "/proj/sub/file10.txt"));
  assert.ok(matches("[ab].txt", "/proj/sub/b.txt"));
  assert.ok(!matches("[!ab].txt", "/proj/sub/b.txt"));
});

test("a class stands for one character of a name, never the slash between names; a leading ] is one of its characters", () => {
  assert.ok(!matches("src[!x]a.ts", "/proj/sub/src/a.ts"), "a negated class does not cross into a directory");
  assert.ok(matches("src[!x]a.ts", "/proj/sub/srcYa.ts"));
  assert.ok(!matches("src[^x]a.ts", "/proj/sub/src/a.ts"));
  assert.ok(!matches("src[+-0]a.ts", "/proj/sub/src/a.ts"), "nor does a range that spans the slash");
  assert.ok(matches("src[+-0]a.ts", "/proj/sub/src-a.ts"));
  assert.ok(matches("[]x].txt", "/proj/sub/].txt"));
  assert.ok(matches("[]x].txt", "/proj/sub/x.txt"));
  assert.ok(!matches("[]x].txt", "/proj/sub/y.txt"));
  assert.ok(matches("[!]x].txt", "/proj/sub/y.txt"));
  assert.ok(!matches("[!]x].txt", "/proj/sub/].txt"));
  assert.ok(matches("[\\]x].txt", "/proj/sub/].txt"), "a backslash in a class makes the next character plain");
  assert.ok(!matches("[\\]x].txt", "/proj/sub/\\.txt"));
});

test("leading literal segments lead the way, escaped wildcards and braces included; the first wildcard stops them", () => {
  assert.ok(matches("../sha\\*red/*.ts", "/proj/sha*red/a.ts"));
  assert.ok(!matches("../sha\\*red/*.ts", "/proj/shaXred/a.ts"));
  assert.ok(matches("app/\\[slug\\]/page.tsx", "/proj/sub/app/[slug]/page.tsx"));
  assert.ok(!matches("app/\\[slug\\]/page.tsx", "/proj/sub/app/s/page.tsx"));
  assert.ok(matches("../{a,b}/x.ts", "/proj/{a,b}/x.ts"));
  assert.ok(!matches("../{a,b}/x.ts", "/proj/a/x.ts"));
  assert.ok(matches("../sh?red/x.ts", "/proj/shXred/x.ts"));
});

test("a matched directory covers everything inside", () => {
  assert.ok(matches("build", "/proj/sub/build/out/a.js"));
  assert.ok(matches("docs/", "/proj/sub/docs/a.md"));
  assert.ok(matches("secrets/**", "/proj/sub/secrets"));
  assert.ok(!matches("secrets/**", "/proj/sub/secretsmore/a"));
});

test("command patterns: exact, legacy prefix, wildcards", () => {
  const m = (spec: string, command: string) => compileCommandPattern(spec)(command);
  assert.ok(m("npm test", "npm test"));
  assert.ok(!m("npm test", "npm test x"));
  assert.ok(m("npm test:*", "npm test"));
  assert.ok(m("npm test:*", "npm test --watch"));
  assert.ok(!m("npm test:*", "npm tests"));
  assert.ok(m("ls *", "ls"));
  assert.ok(m("ls *", "ls -la"));
  assert.ok(!m("ls *", "lsof"));
  assert.ok(m("ls*", "lsof"));
  assert.ok(m("git * main", "git push origin main"));
  assert.ok(!m("git * main", "git push origin main2"));
  assert.ok(m("* --version", "node --version"));
  assert.ok(m("echo \\*", "echo *"));
  assert.ok(!m("echo \\*", "echo hi"));
  assert.ok(m("npm   run  build", "npm run build"));
});
