/** `componentMismatch()`: a record's stated library versions against its stack profile's pins. */
import assert from "node:assert/strict";
import { componentMismatch } from "../../src/kernels/mod.ts";

const STACK = {
  pytorch: "2.8.0",
  transformers: "4.5x",
  flash_attn: "2.8.3",
  cudnn: "> 9.15.0",
  vllm: "0.11.0",
  cublas: "as recorded in the dispatch catalog",
  flags: "--enforce-eager",
};

Deno.test("componentMismatch() accepts what the stack pins, in the forms versions are written", () => {
  for (
    const claimed of [
      {},
      { pytorch: "2.8.0", transformers: "4.5x", cublas: "12.4.5", flags: "--enforce-eager" },
      { torch: "2.8.0+cu128", "flash-attn": "2.8.3", transformers: "4.57.1" },
      { PyTorch: "v2.8", cudnn: "9.16.0", vllm: "0.11.0", cuda: "12.8", other: "anything" },
    ]
  ) {
    assert.equal(componentMismatch(STACK, claimed), null, JSON.stringify(claimed));
  }
});

Deno.test("componentMismatch() names a version the stack excludes, and one it cannot compare", () => {
  const cases: [Record<string, string>, "contradiction" | "unreadable", RegExp][] = [
    [
      { pytorch: "2.4.0" },
      "contradiction",
      /components\.pytorch '2\.4\.0', where the stack pins '2\.8\.0'/,
    ],
    [{ torch: "2.8.1" }, "contradiction", /components\.torch/],
    [{ flash_attn: "2.5.6" }, "contradiction", /'2\.8\.3'/],
    [{ transformers: "5.0.0" }, "contradiction", /'4\.5x'/],
    [{ transformers: "4.5.0" }, "contradiction", /'4\.5x'/],
    [{ cudnn: "9.15.0" }, "contradiction", /'> 9\.15\.0'/],
    [{ vllm: "0.6.0" }, "contradiction", /'0\.11\.0'/],
    [{ pytorch: "nightly" }, "unreadable", /no release number/],
  ];
  for (const [claimed, kind, reason] of cases) {
    const m = componentMismatch(STACK, claimed);
    assert.equal(m?.kind, kind, JSON.stringify(claimed));
    assert.match(m!.reason, reason);
  }
});

Deno.test("componentMismatch() is not escaped by spelling the name or the version otherwise", () => {
  for (const key of ["pytorch ", "Torch ", "torch_version", "PyTorch-Version", "py.torch"]) {
    assert.equal(componentMismatch(STACK, { [key]: "2.4.0" })?.kind, "contradiction", key);
  }
  for (const key of ["flashattn", "flash_attention", "Flash-Attn"]) {
    assert.equal(componentMismatch(STACK, { [key]: "2.5.6" })?.kind, "contradiction", key);
  }
  for (const value of ["torch 2.4.0", "V2.4.0", "==2.4.0", "2.4.0+cu121"]) {
    assert.equal(componentMismatch(STACK, { pytorch: value })?.kind, "contradiction", value);
  }
  // A lookalike name (Cyrillic o) cannot be compared: a match is not vouched for.
  assert.equal(componentMismatch(STACK, { "pyt\u043erch": "2.4.0" })?.kind, "unreadable");
});

Deno.test("componentMismatch() finds a contradiction behind an unreadable component stated first", () => {
  const claimed = { "pyt\u043erch": "x", transformers: "nightly", pytorch: "2.4.0" };
  assert.equal(componentMismatch(STACK, claimed)?.kind, "contradiction");
  assert.equal(componentMismatch(STACK, { transformers: "nightly" })?.kind, "unreadable");
});

Deno.test("componentMismatch() pins a stack's flags, its environment and each plain variable of it word for word", () => {
  const vllm = {
    vllm: "0.11.0",
    flags: "--enforce-eager",
    env: "VLLM_ATTENTION_BACKEND=FLASH_ATTN; on sm_90 VLLM_FLASH_ATTN_VERSION=2; " +
      "VLLM_ALLREDUCE_USE_SYMM_MEM=0",
  };
  // The stack's own words, and the variables it sets, agree.
  assert.equal(componentMismatch(vllm, { flags: "--enforce-eager", env: vllm.env }), null);
  assert.equal(componentMismatch(vllm, { VLLM_ALLREDUCE_USE_SYMM_MEM: "0" }), null);
  assert.equal(componentMismatch(vllm, { VLLM_ATTENTION_BACKEND: " FLASH_ATTN " }), null);
  // Another run: other flags, another environment, a variable set otherwise.
  for (
    const [claimed, names] of [
      [{ flags: "-O3" }, /flags '-O3'.*exactly '--enforce-eager'/],
      [
        { env: "VLLM_ALLREDUCE_USE_SYMM_MEM=1" },
        /components\.env sets VLLM_ALLREDUCE_USE_SYMM_MEM=1/,
      ],
      [{ VLLM_ALLREDUCE_USE_SYMM_MEM: "1" }, /VLLM_ALLREDUCE_USE_SYMM_MEM=0/],
      [{ vllm_attention_backend: "XFORMERS" }, /VLLM_ATTENTION_BACKEND=FLASH_ATTN/],
    ] as const
  ) {
    const m = componentMismatch(vllm, claimed);
    assert.equal(m?.kind, "contradiction", JSON.stringify(claimed));
    assert.match(m!.reason, names);
  }
  // An env that leaves a variable out does not state it otherwise.
  assert.equal(
    componentMismatch(vllm, { env: "VLLM_ATTENTION_BACKEND=FLASH_ATTN; on sm_90 X=2" }),
    null,
  );
  // A conditional setting pins nothing; a variable the stack does not set is not compared.
  assert.equal(componentMismatch(vllm, { VLLM_FLASH_ATTN_VERSION: "3" }), null);
  assert.equal(componentMismatch(vllm, { VLLM_ENABLE_V1_MULTIPROCESSING: "0" }), null);
});
