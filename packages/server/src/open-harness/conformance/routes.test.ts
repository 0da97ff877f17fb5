import { test } from "node:test";
import assert from "node:assert/strict";
import { categoriesOf } from "./routes.ts";

test("unknown categories are named once each, a long one cut, and at most a few of many", () => {
  const refusal = (named: string[]) => {
    try {
      categoriesOf(named);
    } catch (error) {
      return (error as Error).message;
    }
    assert.fail("taken");
  };
  assert.deepEqual(categoriesOf(["robustness", "files", "files"]), ["files", "robustness"]);
  const long = refusal(["files", "x".repeat(50_000)]);
  assert.ok(long.length < 400, long.slice(0, 400));
  assert.match(long, /^categories: unknown "x{40}…" \(50000 characters\); the categories are harness, sessions/);
  const many = refusal([...Array.from({ length: 1000 }, (_, i) => `no${i}`), "no1"]);
  assert.ok(many.length < 400, many.slice(0, 400));
  assert.match(many, /^categories: unknown "no0", "no1", "no2", "no3", "no4" and 995 more; the categories are/);
});

test("the execution category runs only when named: it is no default category, and named it is taken in the suite's order", () => {
  assert.ok(!categoriesOf(undefined).includes("execution"));
  assert.ok(categoriesOf(undefined).includes("robustness"));
  assert.deepEqual(categoriesOf(["execution", "harness"]), ["harness", "execution"]);
  assert.throws(() => categoriesOf(["nope"]), /the categories are harness, .*robustness, execution \(execution only when named: it runs prompts on the model\)/);
});
