/** The layer-stack picture of a FAIL with a layer chain (issue 17): cells, caption, chart, figure. */
import assert from "node:assert/strict";
import {
  layerStackCaption,
  layerStackCells,
  layerStackChart,
  layerStackFigure,
} from "../../src/cli/layer_stack_chart.ts";

const INJECT = '<script>alert(1)</script><img src=x onerror="alert(2)">\u001b[31m\u202e';

Deno.test("layerStackCells() marks the cells before the divergence, the divergence, and the rest in execution order", () => {
  const cells = layerStackCells({ layer: 7, stage: "mlp", layers: 36 });
  assert.equal(cells.length, 72);
  assert.deepEqual(cells.map((c) => c.order), [...Array(72).keys()]);
  assert.deepEqual(cells.slice(14, 17), [
    { layer: 7, stage: "attention", state: "matches", order: 14 },
    { layer: 7, stage: "mlp", state: "first divergence", order: 15 },
    { layer: 8, stage: "attention", state: "downstream, not compared", order: 16 },
  ]);
  const count = (s: string) => cells.filter((c) => c.state === s).length;
  assert.deepEqual([count("matches"), count("first divergence")], [15, 1]);
  assert.equal(count("downstream, not compared"), 56);
});

Deno.test("layerStackCaption() says in plain words which stage differs first and what matched", () => {
  const cases: [Parameters<typeof layerStackCaption>[0], string][] = [
    [
      { layer: 7, stage: "mlp", layers: 36 },
      "Layer 7's MLP output is the first that differs; layers 0-6 and layer 7's attention match bit for bit. The 56 stages after it, through layer 35's MLP, are downstream and were not compared.",
    ],
    [
      { layer: 0, stage: "attention", layers: 1 },
      "Layer 0's attention output is the first that differs, the first stage of the stack. The one stage after it, layer 0's MLP, is downstream and was not compared.",
    ],
    [
      { layer: 0, stage: "mlp", layers: 2 },
      "Layer 0's MLP output is the first that differs; layer 0's attention matches bit for bit. The 2 stages after it, through layer 1's MLP, are downstream and were not compared.",
    ],
    [
      { layer: 1, stage: "attention", layers: 2 },
      "Layer 1's attention output is the first that differs; layer 0 matches bit for bit. The one stage after it, layer 1's MLP, is downstream and was not compared.",
    ],
    [
      { layer: 1, stage: "mlp", layers: 2 },
      "Layer 1's MLP output is the first that differs; layer 0 and layer 1's attention match bit for bit. It is the last stage of the 2-layer stack.",
    ],
    [
      { layer: 30, stage: "attention", layers: 48, step: "decode step 3" },
      "In decode step 3, layer 30's attention output is the first that differs; layers 0-29 match bit for bit. The 35 stages after it, through layer 47's MLP, are downstream and were not compared.",
    ],
  ];
  for (const [d, want] of cases) assert.equal(layerStackCaption(d), want);
});

Deno.test("layerStackCells() and layerStackCaption() refuse a cell outside the stack", () => {
  const bad = [
    { layer: 2, stage: "mlp", layers: 2 },
    { layer: -1, stage: "mlp", layers: 2 },
    { layer: 0.5, stage: "mlp", layers: 2 },
    { layer: 0, stage: "mlp", layers: 0 },
    { layer: 0, stage: "ffn", layers: 2 },
  ] as const;
  for (const d of bad) {
    assert.throws(() => layerStackCells(d as never), RangeError, JSON.stringify(d));
    assert.throws(() => layerStackCaption(d as never), RangeError, JSON.stringify(d));
  }
});

Deno.test("layerStackChart() keeps many layers compact: shorter rows, fewer labels, words only where they fit", () => {
  const spec = (layers: number) =>
    layerStackChart({ layer: layers - 1, stage: "mlp", layers }) as unknown as {
      title: string;
      height: { step: number };
      layer: { encoding: { y: { axis?: { values: number[] } } } }[];
    };
  assert.deepEqual([2, 24, 25, 96, 97].map((n) => spec(n).height.step), [18, 18, 11, 11, 5]);
  assert.equal(spec(36).title, "Layer stack (36 layers): first difference at layer 35, MLP");
  assert.equal(spec(48).layer[0]!.encoding.y.axis!.values.length, 48);
  const tall = spec(128);
  assert.deepEqual(
    tall.layer[0]!.encoding.y.axis!.values,
    [0, 8, 16, 24, 32, 40, 48, 56, 64, 72, 80, 88, 96, 104, 112, 120, 127],
  );
  assert.equal(tall.layer.length, 1); // no "differs" text in 5-pixel rows
  assert.equal(spec(48).layer.length, 2);
});

Deno.test("layerStackFigure() is a labelled SVG with the statement as its description and caption", async () => {
  const d = { layer: 7, stage: "mlp", layers: 36 } as const;
  const html = await layerStackFigure(d);
  const caption = layerStackCaption(d).replaceAll("'", "&#39;");
  assert.match(html, /^<figure class="layers"><svg role="img" /);
  assert.ok(
    html.includes(
      "<title>Layer stack (36 layers): first difference at layer 7, MLP</title>",
    ),
  );
  assert.ok(html.includes(`<desc>${caption}</desc>`));
  assert.ok(html.endsWith(`<figcaption>${caption}</figcaption></figure>`));
  assert.equal(html.match(/aria-label="layer \d+ \w+: first divergence"/g)?.length, 1);
  assert.ok(html.includes(">differs</text>"));
  assert.equal(await layerStackFigure(d), html, "deterministic");
});

Deno.test("layerStackFigure() escapes a step label in the description and caption", async () => {
  const html = await layerStackFigure({ layer: 1, stage: "attention", layers: 4, step: INJECT });
  for (const bad of ["<script", "<img", 'onerror="', "\u001b", "\u202e"]) {
    assert.ok(!html.includes(bad), bad);
  }
  assert.equal(html.match(/In &lt;script&gt;alert\(1\)/g)?.length, 2); // <desc> and caption
  assert.ok(html.includes("\\u{1b}[31m\\u{202e}, layer 1&#39;s attention output"));
});

Deno.test("layerStackFigure() gives a stack taller than any decoder its caption alone, drawing no cell", async () => {
  const d = { layer: 7, stage: "mlp", layers: 4503599627370495 } as const;
  assert.throws(() => layerStackCells(d), RangeError);
  const html = await layerStackFigure(d);
  assert.ok(!html.includes("<svg"));
  const caption = layerStackCaption(d).replaceAll("'", "&#39;");
  assert.equal(html, `<figure class="layers"><figcaption>${caption}</figcaption></figure>`);
});
