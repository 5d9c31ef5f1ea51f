import assert from "node:assert/strict";
import { tempDir } from "../_temp.ts";
import { catalogGpuMismatch } from "../../src/verify/mod.ts";
import { REPO_ROOT, runBitaudit, withOverrides } from "./_run.ts";

const TINY = `${REPO_ROOT}/tables/models/qwen3-tiny-dense/config.json`;
const QWEN3_4B = `${REPO_ROOT}/profiles/models/qwen3-4b.config.json`;
const tmp = await tempDir({ prefix: "bitaudit-classes-cli-" });

/** A continuous-batching stack (flattened rows, varlen FA2) as a user file. */
const FLATTEN = `${tmp}/hf-serving-flatten.json`;
const stack = JSON.parse(
  await Deno.readTextFile(`${REPO_ROOT}/profiles/stack/hf-qwen3-flash-attn-torch2.8.json`),
);
stack.id = "hf-serving-flatten";
stack.operators.batching = "flatten";
await Deno.writeTextFile(FLATTEN, JSON.stringify(stack));

const classes = (args: string[]) => runBitaudit(["model", "classes", ...args]);
const RECIPE_STACK = [
  "--stack",
  "cutlass-3.5-hf-flash-attn",
  "--profile",
  "a100",
  "--recipe",
  "cutlass-kwalk-128x128x64",
];
const TINY_CATALOG = ["--catalog", `${REPO_ROOT}/tables/catalogs/demo-qwen3-tiny-a100.json`];

Deno.test("model classes --json: a fixed recipe covers every GEMM, classes complete, exit 0", async () => {
  const r = await classes([
    ...RECIPE_STACK,
    "--config",
    TINY,
    "--context",
    "99",
    "--max-batch",
    "40",
    "--json",
  ]);
  assert.equal(r.code, 0, r.stderr);
  const out = JSON.parse(r.stdout);
  assert.deepEqual(out.classes.map((c: { from: number; to: number }) => [c.from, c.to]), [
    [1, 15],
    [16, 40],
  ]);
  assert.equal(out.complete, true);
  assert.deepEqual(out.notes, []);
  assert.equal(out.inputs.recipe.id, "cutlass-kwalk-128x128x64");
  assert.equal(out.inputs.multiProcessorCount, 108);
  assert.equal(out.model.hidden, 256);
  assert.equal(out.classes[0].signature.attention.splits, 1);
});

Deno.test("model classes on a flatten stack file and the tiny catalog file: table of classes, exit 0", async () => {
  const args = ["--stack", FLATTEN, "--profile", "a100", ...TINY_CATALOG, "--config", TINY];
  const r = await classes([...args, "--context", "4095"]);
  assert.equal(r.code, 0, r.stderr);
  const lines = r.stdout.split("\n");
  assert.match(
    lines[0]!,
    /^decode classes of qwen3 \(2 layers, hidden 256, heads 2\/1, vocab 512\), context 4095 \(key length 4096\)$/,
  );
  assert.ok(lines.includes("  batch     changes from the previous class"), r.stdout);
  assert.ok(
    lines.some((l) =>
      /^ {2}9\.\.13 +q_proj, k_proj, v_proj, o_proj, gate_proj, up_proj, down_proj, lm_head: parallel_split_k/
        .test(l)
    ),
  );
  assert.ok(
    lines.some((l) => /^ {2}173\.\.256 +FA2 splits: 5 x 7 blocks -> 1 x 32 blocks$/.test(l)),
  );
  assert.doesNotMatch(r.stdout, /not covered/);
  // The same classes by id (the bundled catalog) as from its file.
  const j1 = JSON.parse((await classes([...args, "--context", "4095", "--json"])).stdout);
  const byId = ["--stack", FLATTEN, "--profile", "a100", "--catalog", "demo-qwen3-tiny-a100"];
  const j2 = JSON.parse(
    (await classes([...byId, "--config", TINY, "--context", "4095", "--json"])).stdout,
  );
  assert.deepEqual(j1.classes, j2.classes);
  assert.equal(j1.inputs.catalog.sha256, j2.inputs.catalog.sha256);
  assert.equal(j1.inputs.stack.source, FLATTEN);
});

Deno.test("model classes of Qwen3-4B with the A100 FFN catalog: the covered M are classes of their own", async () => {
  const r = await classes([
    "--stack",
    FLATTEN,
    "--profile",
    "a100",
    "--catalog",
    "a100-cublas-qwen3-4b-ffn",
    "--config",
    QWEN3_4B,
    "--context",
    "1999",
    "--json",
  ]);
  assert.equal(r.code, 3, r.stderr);
  const out = JSON.parse(r.stdout);
  const at = (b: number) =>
    out.classes.find((c: { from: number; to: number }) => c.from <= b && b <= c.to);
  assert.deepEqual([at(100).from, at(100).to], [100, 100]);
  assert.deepEqual(at(1).signature.attention, {
    seqlenK: 2000,
    nBlocks: 16,
    splits: 16,
    blocksPerSplit: 1,
  });
  assert.equal(at(22).signature.attention.splits, 1);
  assert.equal(out.complete, false);
});

Deno.test("model classes refuses bad inputs with coded one-line errors (exit 2) and unmodelled attention (exit 3)", async () => {
  const base = ["--profile", "a100", ...TINY_CATALOG, "--config", TINY, "--context", "99"];
  const cases: [string[], number, string][] = [
    [["--stack", "no-such-stack", ...base], 2, "STACK_UNKNOWN"],
    [["--stack", "no\u001b[2J", ...base], 2, "STACK_UNKNOWN"],
    [["--stack", FLATTEN, ...withOverrides(base, ["--context", "0x10"])], 2, "USAGE_NUMBER"],
    [["--stack", FLATTEN, ...withOverrides(base, ["--context", "0"])], 2, "USAGE_NUMBER"],
    [["--stack", FLATTEN, ...withOverrides(base, ["--context", "1048577"])], 2, "USAGE_NUMBER"],
    [["--stack", FLATTEN, ...base, "--max-batch", "4097"], 2, "USAGE_NUMBER"],
    [["--stack", FLATTEN, ...base, "--sms", "-1"], 2, "USAGE_NUMBER"],
    [["--stack", FLATTEN, ...base, "--recipe", "cublas-single-walk"], 2, "USAGE"],
    [["--stack", "cutlass-3.5-hf-flash-attn", ...base], 2, "USAGE"],
    [["--stack", FLATTEN, "--profile", "nope", ...base.slice(2)], 2, "PROFILE_UNKNOWN"],
    [["--stack", FLATTEN, "--profile", "h100-sxm", ...base.slice(2)], 2, "USAGE"],
    [["--stack", `${tmp}/missing.json`, ...base], 2, "INPUT_MISSING"],
    [["--stack", `${REPO_ROOT}/profiles/gpu/a100.json`, ...base], 2, "ASSET_FILE_INVALID"],
    [
      ["--stack", FLATTEN, ...withOverrides(base, ["--config", `${tmp}/none.json`])],
      2,
      "CONFIG_READ",
    ],
  ];
  const runs = await Promise.all(cases.map(([args]) => classes(args)));
  runs.forEach((r, i) => {
    const [args, code, error] = cases[i]!;
    const what = args.join(" ");
    assert.equal(r.code, code, `${what}: ${r.stderr}`);
    assert.match(r.stderr, new RegExp(`^error \\[${error}\\]: `), what);
    assert.equal(r.stderr.trim().split("\n").length, 1, what);
    assert.ok(!r.stderr.includes("\u001b") && !/\n\s+at /.test(r.stderr), what);
    assert.equal(r.stdout, "", what);
  });
  const cudnn = await classes([
    "--stack",
    "hf-qwen3-sdpa-torch2.11-hopper",
    "--profile",
    "h100-sxm",
    "--catalog",
    "demo-qwen3-tiny-h100-sxm",
    "--config",
    TINY,
    "--context",
    "99",
  ]);
  assert.equal(cudnn.code, 3, cudnn.stderr);
  assert.match(cudnn.stderr, /^NOT_VERIFIED: attention backend 'cudnn-sdpa'/);
});

Deno.test("model classes on a part where the stack's SFU functions were never compared (a B200's RCP, an A40's EX2) is NOT_VERIFIED, as the verifier finds every such sequence (exit 3)", async () => {
  for (const [gpu, sms, fn] of [["b200", "148", "rcp"], ["a40", "84", "ex2"]] as const) {
    const r = await classes([
      "--stack",
      "cutlass-3.5-hf-flash-attn",
      "--profile",
      gpu,
      "--sms",
      sms,
      "--recipe",
      "cutlass-kwalk-128x128x64",
      "--config",
      TINY,
      "--context",
      "99",
    ]);
    assert.equal(r.code, 3, `${gpu}: ${r.stdout}${r.stderr}`);
    assert.match(
      r.stderr,
      new RegExp(`^NOT_VERIFIED: SFU ${fn} of 'tesla-sfu-v1' is 'model-only' on sm`),
    );
    assert.equal(r.stdout, "");
  }
});

Deno.test("model classes holds --sms to the chip's count as the verifier does: above it a usage error, below it NOT_VERIFIED (exit 3)", async () => {
  const args = (
    sms: string,
  ) => [...RECIPE_STACK, "--config", TINY, "--context", "99", "--sms", sms];
  const above = await classes(args("200"));
  assert.equal(above.code, 2, above.stderr);
  assert.match(
    above.stderr,
    /^error \[USAGE\]: Cannot derive classes: multiProcessorCount 200 on a 'a100', whose chip has 108 SMs/,
  );
  const below = await classes(args("100"));
  assert.equal(below.code, 3, below.stderr);
  assert.match(
    below.stderr,
    /^NOT_VERIFIED: multiProcessorCount 100 below the 'a100' chip's 108 SMs/,
  );
  assert.equal(below.stdout, "");
  const own = await classes(args("108"));
  assert.equal(own.code, 0, own.stderr);
});

Deno.test("model classes refuses a catalog captured on another GPU with the verifier's reason (catalogGpuMismatch), as claims append does", async () => {
  const r = await classes([
    "--stack",
    FLATTEN,
    "--profile",
    "a100",
    "--catalog",
    "demo-qwen3-tiny-h100-sxm",
    "--config",
    TINY,
    "--context",
    "99",
  ]);
  assert.equal(r.code, 2, r.stderr);
  const why = catalogGpuMismatch({ id: "demo-qwen3-tiny-h100-sxm", gpu: "h100-sxm" }, "a100");
  assert.equal(r.stderr.trim(), `error [USAGE]: Cannot derive classes: ${why}`);
});
