import { test } from "node:test";
import assert from "node:assert/strict";
import { byLabel, exposition } from "./exposition.ts";

test("label values and help text are escaped as the text format says; numbers it cannot write as digits are NaN and ±Inf", () => {
  const text = exposition([
    { name: "x_total", help: "a \\ back\nslash", type: "counter", samples: byLabel("code", new Map([['say "hi"\\\nbye', 2]])) },
    { name: "y", help: "odd values", type: "gauge", samples: [{ value: NaN }, { labels: { k: "a" }, value: Infinity }, { labels: { k: "b" }, value: -Infinity }] },
  ]);
  assert.equal(
    text,
    [
      "# HELP x_total a \\\\ back\\nslash",
      "# TYPE x_total counter",
      'x_total{code="say \\"hi\\"\\\\\\nbye"} 2',
      "# HELP y odd values",
      "# TYPE y gauge",
      "y NaN",
      'y{k="a"} +Inf',
      'y{k="b"} -Inf',
      "",
    ].join("\n"),
  );
});

test("a counter whose name does not end in _total, or a name the format does not take, is refused", () => {
  assert.throws(() => exposition([{ name: "runs", help: "h", type: "counter", samples: [] }]), /a counter's name ends in _total: runs/);
  assert.throws(() => exposition([{ name: "bad-name", help: "h", type: "gauge", samples: [] }]), /not a metric name: bad-name/);
  assert.throws(() => exposition([{ name: "g", help: "h", type: "gauge", samples: [{ labels: { "1x": "v" }, value: 1 }] }]), /not a label name: 1x/);
});
