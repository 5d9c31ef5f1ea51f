/** `componentMismatch()`: a record's stated library versions against its stack profile's pins. */
import assert from "node:assert/strict";
import { componentMismatch, statedSettings, uncomparedComponents } from "../../src/kernels/mod.ts";
import { componentName } from "../../src/kernels/stack_components.ts";

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
      { pytorch: "2.8.0", transformers: "4.5x", cublas: STACK.cublas, flags: "--enforce-eager" },
      { torch: "2.8.0+cu128", "flash-attn": "2.8.3", transformers: "4.57.1" },
      { PyTorch: "v2.8", cudnn: "9.16.0", vllm: "0.11.0", cuda: "12.8", cublas: "12.4.5" },
      { env: "CUDA_VISIBLE_DEVICES=0,1 NCCL_DEBUG=INFO NCCL_NVLS_ENABLE=0 NCCL_ALGO=Tree" },
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
  for (
    const key of [
      "pytorch ",
      "Torch ",
      "torch_version",
      "PyTorch-Version",
      "py.torch",
      "torch cu128",
    ]
  ) {
    assert.equal(componentMismatch(STACK, { [key]: "2.4.0" })?.kind, "contradiction", key);
  }
  // A major version or a CUDA build folded into the name is the same library.
  for (
    const key of [
      "flashattn",
      "flash_attention",
      "Flash-Attn",
      "flash_attn_2",
      "FlashAttention2",
      "fa2",
    ]
  ) {
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

Deno.test("componentMismatch() pins each plain variable of a stack's env, however a record writes its environment", () => {
  const vllm = {
    vllm: "0.11.0",
    flags: "--enforce-eager",
    env: "VLLM_ATTENTION_BACKEND=FLASH_ATTN; on sm_90 VLLM_FLASH_ATTN_VERSION=2; " +
      "VLLM_ALLREDUCE_USE_SYMM_MEM=0",
  };
  const agree = [
    { flags: "--enforce-eager", env: vllm.env },
    { VLLM_ALLREDUCE_USE_SYMM_MEM: "0" },
    { VLLM_ALLREDUCE_USE_SYMM_MEM: "'0'" },
    { VLLM_ATTENTION_BACKEND: " FLASH_ATTN " },
    { env: "VLLM_ATTENTION_BACKEND='FLASH_ATTN' VLLM_ALLREDUCE_USE_SYMM_MEM=\"0\"" },
    // Leaving a variable out does not state it otherwise; a conditional pin pins nothing.
    { VLLM_FLASH_ATTN_VERSION: "3" },
    { VLLM_ENABLE_V1_MULTIPROCESSING: "0" },
  ];
  for (const claimed of agree) {
    assert.equal(componentMismatch(vllm, claimed), null, JSON.stringify(claimed));
  }
  // Another run: a variable set otherwise, in any of the ways an environment is written.
  const contradicting = [
    { VLLM_ALLREDUCE_USE_SYMM_MEM: "1" },
    { vllm_attention_backend: "XFORMERS" },
    { env: "VLLM_ALLREDUCE_USE_SYMM_MEM=1" },
    { env: "VLLM_ATTENTION_BACKEND=FLASH_ATTN VLLM_ALLREDUCE_USE_SYMM_MEM=1" },
    { env: "VLLM_ATTENTION_BACKEND=FLASH_ATTN\nVLLM_ALLREDUCE_USE_SYMM_MEM=1" },
    { env: "A=1, VLLM_ALLREDUCE_USE_SYMM_MEM=1" },
    { env: "export VLLM_ALLREDUCE_USE_SYMM_MEM=1" },
    { env: "VLLM_ALLREDUCE_USE_SYMM_MEM = 1" },
    { environment: "VLLM_ALLREDUCE_USE_SYMM_MEM=1" },
    { env_vars: "x && VLLM_ALLREDUCE_USE_SYMM_MEM=1" },
  ];
  for (const claimed of contradicting) {
    const m = componentMismatch(vllm, claimed);
    assert.equal(m?.kind, "contradiction", JSON.stringify(claimed));
    assert.match(m!.reason, /VLLM_(ALLREDUCE_USE_SYMM_MEM|ATTENTION_BACKEND)/);
  }
  // A pinned variable named so that it cannot be read, and flags other than the stack's, cannot
  // be compared: unreadable (NOT_VERIFIED where the bits match), never a silent agreement.
  for (
    const claimed of [
      { env: "VLLM_ALLREDUCE_USE_SYMM\u200b_MEM=1" },
      { env: "VLLM_ALLREDUCE_USE_SYMM_MEM:1" },
      { flags: "-O3" },
      { flags: "--enforce-eager --tensor-parallel-size 4" },
    ]
  ) {
    assert.equal(componentMismatch(vllm, claimed)?.kind, "unreadable", JSON.stringify(claimed));
  }
  // On the architecture a conditional setting names, it is pinned like a plain one; elsewhere,
  // and where the caller names no architecture, it pins nothing.
  const hopper = { architecture: "sm_90" };
  for (const claimed of agree.filter((c) => !("VLLM_FLASH_ATTN_VERSION" in c))) {
    assert.equal(componentMismatch(vllm, claimed, hopper), null, JSON.stringify(claimed));
  }
  assert.equal(componentMismatch(vllm, { VLLM_FLASH_ATTN_VERSION: "2" }, hopper), null);
  for (
    const claimed of [
      { VLLM_FLASH_ATTN_VERSION: "3" },
      { env: "VLLM_ATTENTION_BACKEND=FLASH_ATTN VLLM_FLASH_ATTN_VERSION=3" },
    ]
  ) {
    const m = componentMismatch(vllm, claimed, hopper);
    assert.equal(m?.kind, "contradiction", JSON.stringify(claimed));
    assert.match(m!.reason, /VLLM_FLASH_ATTN_VERSION=2 on sm_90/);
    assert.equal(componentMismatch(vllm, claimed, { architecture: "sm_80" }), null);
    assert.equal(componentMismatch(vllm, claimed), null);
  }
});

Deno.test("componentMismatch() reads a pinned variable or flags in a component of any name", () => {
  const vllm = {
    vllm: "0.11.0",
    flags: "--enforce-eager",
    env: "VLLM_ATTENTION_BACKEND=FLASH_ATTN; VLLM_ALLREDUCE_USE_SYMM_MEM=0",
  };
  for (
    const claimed of [
      { launch_env: "VLLM_ATTENTION_BACKEND=FLASHINFER VLLM_ALLREDUCE_USE_SYMM_MEM=1" },
      { cmdline: "VLLM_ALLREDUCE_USE_SYMM_MEM=1 vllm serve --enforce-eager" },
    ]
  ) {
    const m = componentMismatch(vllm, claimed);
    assert.equal(m?.kind, "contradiction", JSON.stringify(claimed));
    assert.match(m!.reason, /^components\.(launch_env|cmdline) sets VLLM_/);
  }
  for (
    const claimed of [
      { cli_args: "--kv-cache-dtype fp8 --quantization fp8" },
      { notes: "VLLM_ALLREDUCE_USE_SYMM_MEM left at its default" },
    ]
  ) {
    assert.equal(componentMismatch(vllm, claimed)?.kind, "unreadable", JSON.stringify(claimed));
  }
  // The stack's own words under another name, and values with neither, agree.
  for (
    const claimed of [
      { cli_args: "--enforce-eager" },
      { launch_env: "VLLM_ATTENTION_BACKEND=FLASH_ATTN" },
      { cuda: "12.8.1", driver: "570.86" },
    ]
  ) {
    assert.equal(componentMismatch(vllm, claimed), null, JSON.stringify(claimed));
  }
});

Deno.test("componentMismatch() does not take a pre-release, development or local build for the release", () => {
  const stack = { pytorch: "2.8.0", transformers: "4.5x", nccl: "2.27.3" };
  for (
    const claimed of [
      { pytorch: "2.8.0a0+5228986c39.nv25.05" },
      { pytorch: "2.8.0rc1" },
      { pytorch: "2.8.0.post1" },
      { pytorch: "2.8.0+git1234abc" },
      { transformers: "4.57.0.dev0" },
      // Python packaging's other spellings of pre-, post- and development releases, source
      // snapshots and ranges.
      { transformers: "4.57.6_rc1" },
      { transformers: "4.57.6_dev0" },
      { transformers: "4.57.6_post1" },
      { transformers: "4.57.6rev1" },
      { transformers: "4.57.6r1" },
      { transformers: "4.57.6-1" },
      { transformers: "4.57.6-3-gabc1234" },
      { transformers: "v4.57.6-3-gabc1234" },
      { transformers: "4.57.6.g1234abc" },
      { transformers: "4.57.1-4.58.0" },
      { pytorch: "2.8.0_rc1" },
      { pytorch: "2.8.0-cuda12.8-rc1" },
      { nccl: "2.27.3-1rc" },
    ]
  ) {
    const m = componentMismatch(stack, claimed);
    assert.equal(m?.kind, "unreadable", JSON.stringify(claimed));
    assert.match(m!.reason, /build/);
    assert.match(m!.advice ?? "", /run a release the stack names/);
  }
  for (
    const claimed of [
      { pytorch: "2.8.0+cu128" },
      { torch: "torch==2.8.0" },
      { nccl: "2.27.3-1+cuda12.8" },
      { pytorch: "2.8.0-cuda12.8_py312" },
      { pytorch: "2.8.0-cuda12.8-cudnn9-runtime" },
      { nccl: "2.27.3-1" },
      { transformers: "4.57.1" },
    ]
  ) {
    assert.equal(componentMismatch(stack, claimed), null, JSON.stringify(claimed));
  }
  // Still a contradiction where the numbers are another release's.
  assert.equal(componentMismatch(stack, { pytorch: "2.4.0a0" })?.kind, "contradiction");
  assert.equal(componentMismatch(stack, { transformers: "4.60.0.dev0" })?.kind, "contradiction");
  assert.equal(componentMismatch(stack, { pytorch: "2.4.0" })?.kind, "contradiction");
});

Deno.test("componentMismatch(): a stack's own components, copied whole into a record, agree on every architecture", () => {
  const dir = new URL("../../profiles/stack/", import.meta.url);
  let vllm = 0;
  for (const e of Deno.readDirSync(dir)) {
    const stack = JSON.parse(Deno.readTextFileSync(new URL(e.name, dir))).components as Record<
      string,
      string
    >;
    if (stack.vllm !== undefined) vllm++;
    for (const architecture of ["sm_80", "sm_89", "sm_90", "sm_100"]) {
      assert.equal(
        componentMismatch(stack, stack, { architecture }),
        null,
        `${e.name} ${architecture}`,
      );
    }
  }
  assert.ok(vllm >= 5);
  // A setting's name is not a library's: VLLM_FLASH_ATTN_VERSION (pinned on sm_90) is not
  // vllm_flash_attn (the library's version), though both fold to one component name.
  const stack = { env: "on sm_90 VLLM_FLASH_ATTN_VERSION=2", vllm_flash_attn: "as pinned by vLLM" };
  const hopper = { architecture: "sm_90" };
  assert.equal(componentMismatch(stack, { vllm_flash_attn: "2.7.4" }, hopper), null);
  assert.equal(
    componentMismatch(stack, { attention: "vllm-flash-attn (FA2)" }, hopper)?.kind,
    "unreadable",
  );
  assert.equal(
    componentMismatch(stack, { VLLM_FLASH_ATTN_VERSION: "3" }, hopper)?.kind,
    "contradiction",
  );
});

Deno.test("componentMismatch(): an environment's lists (NCCL_ALGO=Ring,Tree) are read whole", () => {
  const settings = statedSettings({
    env: "export NCCL_ALGO=Ring,Tree NCCL_PROTO=LL128,Simple, A=1;NCCL_X=^ring;allreduce:tree",
    other: "VLLM_ATTENTION_BACKEND=FLASH_ATTN; on sm_90 VLLM_FLASH_ATTN_VERSION=2",
  });
  assert.deepEqual(settings, [
    ["NCCL_ALGO", "Ring,Tree"],
    ["NCCL_PROTO", "LL128,Simple"],
    ["A", "1"],
    ["NCCL_X", "^ring;allreduce:tree"],
    ["VLLM_ATTENTION_BACKEND", "FLASH_ATTN"],
    ["VLLM_FLASH_ATTN_VERSION", "2"],
  ]);
});

Deno.test("componentMismatch(): a value that repeats a numbered name reads the release, not the name's digit", () => {
  const stack = { pytorch: "2.8.0", flash_attn: "2.8.3" };
  for (
    const claimed of [
      { fa2: "FA2 2.8.3" },
      { flash_attn_2: "flash_attn_2==2.8.3" },
      { FlashAttention2: "FlashAttention-2 v2.8.3" },
      { "torch cu128": "cu128 torch 2.8.0" },
      { flash_attn: "FlashAttention-2 v2.8.3" },
    ]
  ) assert.equal(componentMismatch(stack, claimed), null, JSON.stringify(claimed));
  assert.equal(componentMismatch(stack, { fa2: "FA2 2.6.3" })?.kind, "contradiction");
  assert.equal(componentMismatch(stack, { pytorch: "cu128 torch 2.4.0" })?.kind, "contradiction");
});

Deno.test("componentMismatch(): an integer-encoded release (cuDNN's 91002) is not read as release 91002", () => {
  const stack = { cudnn: "> 9.15.0", pytorch: "2.8.0" };
  const m = componentMismatch(stack, { cudnn: "91002" });
  assert.equal(m?.kind, "unreadable");
  assert.match(m!.reason, /integer encoding/);
  assert.equal(componentMismatch(stack, { cudnn: "9.10.2" })?.kind, "contradiction");
  assert.equal(componentMismatch(stack, { cudnn: "9.16.0" }), null);
  assert.equal(componentMismatch(stack, { pytorch: "2" })?.kind, "contradiction");
});

Deno.test("componentMismatch(): two names of one pinned library stating two releases contradict each other, in any order; one release written two ways does not", () => {
  const stack = { transformers: "4.5x", cudnn: "> 9.15.0" };
  for (
    const claimed of [
      { transformers: "4.57.0", transformers_version: "4.57", TransformersVer: "4.57.1" },
      { TransformersVer: "4.57.1", transformers_version: "4.57", transformers: "4.57.0" },
      { cudnn: "9.16", cudnn_version: "9.17.1" },
    ]
  ) {
    const m = componentMismatch(stack, claimed);
    assert.equal(m?.kind, "contradiction", JSON.stringify(claimed));
    assert.match(m!.reason, /state two releases of one library/);
  }
  assert.equal(componentMismatch(stack, { cudnn: "9.16", cudnn_version: "9.16.1" }), null);
  assert.equal(
    componentMismatch(stack, { transformers: "v4.57.1", TRANSFORMERS_VERSION: "4.57.1" }),
    null,
  );
});

Deno.test("componentMismatch(): what the stack does not pin cannot be compared, so it is never passed over", () => {
  const vllm = {
    vllm: "0.11.0",
    cublas: "as recorded in the dispatch catalog",
    flags: "--enforce-eager",
    env: "VLLM_ATTENTION_BACKEND=FLASH_ATTN; on sm_90 VLLM_FLASH_ATTN_VERSION=2",
  };
  for (
    const claimed of [
      // Run settings the stack does not pin, and what is neither its words nor a release.
      { cublas: "the one in the container" },
      { cublas: "12.4.5 --with-split-k" },
      { kv_cache_dtype: "fp8" },
      { dtype: "float16" },
      { attn_implementation: "sdpa" },
      { compilation_config: '{"cudagraph_mode":"FULL","level":3}' },
      { KV_CACHE_DTYPE: "fp8" },
      { max_num_batched_tokens: "8192" },
      // Variables the stack's env does not name, in an environment text of any name.
      { env: "VLLM_ATTENTION_BACKEND=FLASH_ATTN; on sm_90 X=2" },
      { env: "VLLM_USE_TRITON_FLASH_ATTN=1" },
      { launch_env: "CUBLAS_WORKSPACE_CONFIG=:4096:8" },
      { env: "NCCL_NVLS_ENABLE=1" },
    ]
  ) {
    const m = componentMismatch(vllm, claimed, { architecture: "sm_80" });
    assert.equal(m?.kind, "unreadable", JSON.stringify(claimed));
    assert.match(m!.reason, /cannot be compared|neither the stack.s|not compared/);
    assert.ok(m!.advice !== undefined && /leave/.test(m!.advice), JSON.stringify(claimed));
  }
  // What the comparison knows: the stack's own words, a variable its env sets on another
  // architecture, the NCCL settings compared with an all-reduce, inert variables; and a library's
  // release, recorded but not compared (uncomparedComponents names it).
  for (
    const claimed of [
      { cublas: vllm.cublas, launch_flags: "--enforce-eager" },
      { cublas: "11.0.2", cuda: "12.8.1", driver: "570.86.15" },
      { VLLM_FLASH_ATTN_VERSION: "3" },
      { NCCL_PROTO: "Simple", env: "NCCL_MAX_NCHANNELS=1 VLLM_ENABLE_V1_MULTIPROCESSING=0" },
      { env: "export CUDA_VISIBLE_DEVICES=0 PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True" },
    ]
  ) {
    assert.equal(
      componentMismatch(vllm, claimed, { architecture: "sm_80" }),
      null,
      JSON.stringify(claimed),
    );
  }
});

Deno.test("uncomparedComponents() names the releases a record states that its stack does not pin by release", () => {
  const stack = {
    pytorch: "2.8.0",
    cublas: "as recorded in the dispatch catalog",
    env: "VLLM_ALLREDUCE_USE_SYMM_MEM=0",
  };
  assert.deepEqual(
    uncomparedComponents(stack, {
      pytorch: "2.8.0",
      cublas: "12.4.5",
      cuda: "12.4",
      env: "CUDA_VISIBLE_DEVICES=0",
      driver: "570.86.15",
    }),
    ["cublas '12.4.5'", "cuda '12.4'", "driver '570.86.15'"],
  );
  assert.deepEqual(uncomparedComponents(stack, { ...stack }), []);
});

Deno.test("componentMismatch(): nothing rides along a release or an environment text, and a reason quotes a prover's text short", () => {
  const vllm = {
    vllm: "0.11.0",
    pytorch: "2.8.0",
    transformers: "4.5x",
    flags: "--enforce-eager",
    env: "VLLM_ATTENTION_BACKEND=FLASH_ATTN; on sm_90 VLLM_FLASH_ATTN_VERSION=2",
  };
  for (
    const claimed of [
      // A setting shaped like a release, under a name no library has.
      { kv_cache_dtype: "fp8 1.0" },
      { attn_implementation: "sdpa 2.8.0" },
      { rope_theta: "1000000.0" },
      { temperature: "0.7" },
      { tensor_parallel_size: "2.0" },
      { attention_backend: "FLASHINFER 0.3.1" },
      { launch: "vllm 0.11.0 (--kv-cache-dtype fp8)" },
      // A pinned library's release with a statement beside it.
      { pytorch: "2.8.0 (allow_tf32=True)" },
      { pytorch: "2.8.0 (allow_tf32 True, torch.compile max-autotune)" },
      { vllm: "0.11.0 (--kv-cache-dtype fp8)" },
      { transformers: "4.57.1 attn_implementation eager" },
      // An environment text holding more than NAME=VALUE settings.
      { env: '{"VLLM_BATCH_INVARIANT": "1"}' },
      { env: "VLLM_ATTENTION_BACKEND=FLASH_ATTN VLLM_BATCH_INVARIANT: 1" },
      { env: "CUDA_VISIBLE_DEVICES=0 --attn-implementation sdpa" },
      { env: "setenv X Y" },
      { launch: "CUDA_VISIBLE_DEVICES=0 python run.py --attn-implementation eager" },
      { launch: "CUDA_VISIBLE_DEVICES=0 vllm serve Qwen/Qwen3-0.6B -q fp8 -O3" },
      // A variable written in another case is not the variable NCCL reads.
      { nccl_algo: "^tree" },
      { Nccl_Min_NChannels: "4" },
    ]
  ) {
    const m = componentMismatch(vllm, claimed, { architecture: "sm_80" });
    assert.ok(m !== null, JSON.stringify(claimed));
    assert.equal(m.kind, "unreadable", `${JSON.stringify(claimed)}: ${m.reason}`);
  }
  // Honest statements still agree.
  for (
    const claimed of [
      { torch: "2.8.0+cu128", cuda: "12.8", cudnn: "9.10.2", nccl: "2.27.3-1+cuda12.8" },
      { pytorch: "PyTorch 2.8.0", vllm: "vllm==0.11.0", triton: "3.4.0", driver: "570.86.15" },
      { TORCH_VERSION: "2.8", env: "CUDA_VISIBLE_DEVICES=0,1 VLLM_ENABLE_V1_MULTIPROCESSING=0" },
      { ...vllm },
    ]
  ) {
    assert.equal(
      componentMismatch(vllm, claimed, { architecture: "sm_80" }),
      null,
      JSON.stringify(claimed),
    );
  }
  // A value padded with spaces to pass for a line of its own is quoted short.
  const padded = `abc${" ".repeat(34)}verdict: PASSED  (8 PASS, 0 FAIL, 0 NOT_VERIFIED)${
    " ".repeat(60)
  }`;
  const m = componentMismatch(vllm, { cuda: padded });
  assert.equal(m?.kind, "unreadable");
  assert.doesNotMatch(m!.reason, / {2}/);
  assert.ok(m!.reason.length < 260, m!.reason);
});

Deno.test("componentMismatch(): plain text only, an integer-encoded release is told how to state it, CUDA releases of several kinds stand side by side, torchrun's rank variables are inert", () => {
  const stack = { pytorch: "2.8.0", env: "VLLM_ALLREDUCE_USE_SYMM_MEM=0" };
  for (
    const claimed of [
      { CUDA_VISIBLE_DEVICES: "0\u001b[31m" },
      { env: "HF_HOME=/x\u202egnp.exe" },
      { cuda: "12.8\u0007" },
    ]
  ) {
    const m = componentMismatch(stack, claimed);
    assert.equal(m?.kind, "unreadable", JSON.stringify(claimed));
    assert.match(m!.reason, /control or bidirectional/);
  }
  const encoded = componentMismatch(stack, { cudnn: "91002" });
  assert.equal(encoded?.kind, "unreadable");
  assert.match(encoded!.reason, /integer encoding/);
  assert.match(encoded!.advice ?? "", /dotted release .*9\.10\.2/);
  // Two CUDA releases may both be true (nvidia-smi's driver CUDA, the toolkit, PyTorch's build).
  assert.equal(
    componentMismatch(stack, {
      "CUDA Version": "12.9",
      cuda: "12.8",
      "torch.version.cuda": "12.6",
    }),
    null,
  );
  assert.deepEqual(uncomparedComponents(stack, { cuda: "12.8", torch_cuda: "12.6" }), [
    "cuda '12.8'",
    "torch_cuda '12.6'",
  ]);
  assert.equal(componentMismatch(stack, { env: "RANK=0 LOCAL_RANK=0" }), null);
  // A world size is the record's parallelism, stated there.
  assert.equal(componentMismatch(stack, { env: "WORLD_SIZE=1" })?.kind, "unreadable");
  for (const mark of ["\u061c", "\u2028", "\ufeff"]) {
    assert.equal(
      componentMismatch(stack, { env: `MASTER_ADDR=10.0.0.1${mark}` })?.kind,
      "unreadable",
    );
  }
});

Deno.test("componentMismatch(): a patch series (`4.57.x`) pins its leading numbers; any patch of them agrees, another minor contradicts", () => {
  const stack = { transformers: "4.57.x" };
  for (const ok of ["4.57.0", "4.57.6", "v4.57.1", "4.57", "4.57.x"]) {
    assert.equal(componentMismatch(stack, { transformers: ok }), null, ok);
  }
  for (const bad of ["4.53.0", "4.5.7", "4.570.1", "5.17.0", "4"]) {
    assert.equal(componentMismatch(stack, { transformers: bad })?.kind, "contradiction", bad);
  }
});

Deno.test("componentName(): a name an object inherits (constructor) is read as itself", () => {
  assert.equal(componentName("constructor"), "constructor");
  assert.equal(componentName("Constructor_version"), "constructor");
  assert.equal(
    componentMismatch({ pytorch: "2.8.0" }, { constructor: "2.8.0" })?.kind,
    "unreadable",
  );
});

Deno.test("componentMismatch(): a series `4.5x` is the minors 50 to 59, not a minor that only begins with 5", () => {
  const stack = { transformers: "4.5x" };
  for (const ok of ["4.50.0", "4.57.1", "4.59"]) {
    assert.equal(componentMismatch(stack, { transformers: ok }), null, ok);
  }
  for (const bad of ["4.500", "4.5000.1", "4.5", "4.5.9", "4.60.0", "5.57.0"]) {
    assert.equal(componentMismatch(stack, { transformers: bad })?.kind, "contradiction", bad);
  }
});

Deno.test("componentMismatch(): NCCL stated as torch.cuda.nccl.version()'s tuple or as NCCL_VERSION_CODE is its release, as the prover guide says (review h110)", () => {
  const vllm = JSON.parse(
    Deno.readTextFileSync(
      new URL("../../profiles/stack/vllm-0.11-eager-fa2.json", import.meta.url),
    ),
  ).components as Record<string, string>;
  for (const nccl of ["(2, 27, 3)", "22703", "2.27.3", "(2, 18, 3)"]) {
    assert.equal(componentMismatch(vllm, { vllm: "0.11.0", nccl }), null, nccl);
  }
  assert.equal(componentMismatch(vllm, { cudnn: "91002" })?.kind, "unreadable");
  // The tuple's suffix is stated text: control or bidirectional characters in it are unreadable,
  // as in a dotted release (the tuple had been read past them and accepted).
  for (
    const nccl of ["(2, 27, 3, '\u202e\u001b[31mx')", "(2, 27, 3,\u2028 'a0')", "2.27.3\u202e"]
  ) {
    const m = componentMismatch(vllm, { vllm: "0.11.0", nccl });
    assert.equal(m?.kind, "unreadable", JSON.stringify(nccl));
    assert.match(m!.reason, /control or bidirectional/);
  }
});

Deno.test("componentMismatch(): before a release only the component's own name and == are read; any other word states more than a release (review h129)", () => {
  for (
    const value of [
      "nightly 2.8.0",
      "nv25.05 2.8.0",
      "torch2.4.0 2.8.0",
      "not 2.8.0",
      "dev 2.8.0",
      "rc1 2.8.0",
      "custom build 2.8.0",
      "rocm6.3 2.8.0",
      "cpu 2.8.0",
      "torch-nightly 2.8.0",
      "torch cpu 2.8.0",
    ]
  ) {
    const m = componentMismatch(STACK, { torch: value });
    assert.equal(m?.kind, "unreadable", value);
    assert.match(m!.reason, /states more than a release/, value);
  }
  for (
    const value of [
      "torch 2.8.0",
      "PyTorch 2.8.0+cu128",
      "torch==2.8.0",
      "== 2.8.0",
      "torch v2.8.0",
      "torch-2.8.0",
      "PyTorch version 2.8.0",
      "cu128 torch 2.8.0",
    ]
  ) assert.equal(componentMismatch(STACK, { torch: value }), null, value);
  // A library the stack does not pin by release is recorded only as a bare release of its own.
  assert.equal(componentMismatch(STACK, { cuda: "CUDA 12.8" }), null);
  assert.deepEqual(uncomparedComponents(STACK, { cuda: "CUDA 12.8" }), ["cuda 'CUDA 12.8'"]);
  for (const cuda of ["rocm 6.3", "nightly 12.8"]) {
    assert.equal(componentMismatch(STACK, { cuda })?.kind, "unreadable", cuda);
    assert.deepEqual(uncomparedComponents(STACK, { cuda }), [], cuda);
  }
});

Deno.test("componentMismatch(): a release the stack excludes contradicts it whatever is written beside it; a bound states no release (review h129)", () => {
  for (
    const claimed of [
      { torch: "2.4.0 (cu118)" },
      { torch: "nightly 2.4.0" },
      { pytorch: "2.4.0 (allow_tf32=True)" },
      { transformers: "nightly", flash_attn: "2.5.6 built from source" },
    ]
  ) {
    const m = componentMismatch(STACK, claimed);
    assert.equal(m?.kind, "contradiction", JSON.stringify(claimed));
    assert.match(m!.reason, /where the stack pins/);
  }
  assert.match(
    componentMismatch(STACK, { torch: "2.4.0 (cu118)" })!.reason,
    /^components\.torch '2\.4\.0 \(cu118\)', where the stack pins '2\.8\.0'$/,
  );
  for (const value of [">=2.4.0", "torch>=2.4.0", "!=2.4.0", "~=2.4.0", "<2.9", "> 2.4"]) {
    assert.equal(componentMismatch(STACK, { torch: value })?.kind, "unreadable", value);
  }
});

Deno.test("componentMismatch(): CUDA_VISIBLE_DEVICES is inert as whole GPUs only; a MIG instance is not modelled (review h129)", () => {
  const stack = { pytorch: "2.8.0" };
  const uuid = "8932f937-d72c-4106-c12f-20bd9faed9f6";
  for (
    const claimed of [
      { env: "CUDA_VISIBLE_DEVICES=0,1" },
      { env: `CUDA_VISIBLE_DEVICES=GPU-${uuid}` },
      { env: `export CUDA_VISIBLE_DEVICES="0, GPU-8932f937"` },
      { CUDA_VISIBLE_DEVICES: "3" },
    ]
  ) assert.equal(componentMismatch(stack, claimed), null, JSON.stringify(claimed));
  for (
    const claimed of [
      { env: "CUDA_VISIBLE_DEVICES=MIG-4f2d9a1c-1g.10gb" },
      { env: `CUDA_VISIBLE_DEVICES=MIG-GPU-${uuid}/1/0` },
      { env: `export CUDA_VISIBLE_DEVICES='MIG-${uuid}'` },
      { launch_env: `CUDA_VISIBLE_DEVICES=0,MIG-${uuid}` },
      { CUDA_VISIBLE_DEVICES: `MIG-${uuid}` },
    ]
  ) {
    const m = componentMismatch(stack, claimed);
    assert.equal(m?.kind, "unreadable", JSON.stringify(claimed));
    assert.match(m!.reason, /selects a MIG instance/, JSON.stringify(claimed));
    assert.match(m!.advice ?? "", /whole GPUs/);
  }
  // Any other value is not known to pick whole GPUs.
  assert.equal(componentMismatch(stack, { env: "CUDA_VISIBLE_DEVICES=all" })?.kind, "unreadable");
  // It hides no contradiction.
  const both = { env: `CUDA_VISIBLE_DEVICES=MIG-${uuid}`, torch: "2.4.0" };
  assert.equal(componentMismatch(stack, both)?.kind, "contradiction");
});

Deno.test("componentMismatch(): a backslash before a line break joins an environment's lines, as a shell reads them (review h129)", () => {
  const stack = { env: "VLLM_ATTENTION_BACKEND=FLASH_ATTN; VLLM_ALLREDUCE_USE_SYMM_MEM=0" };
  for (
    const env of [
      "VLLM_ATTENTION_BACKEND=FLASH_ATTN \\\nVLLM_ALLREDUCE_USE_SYMM_MEM=0",
      "export VLLM_ATTENTION_BACKEND=FLASH_ATTN \\\r\n  VLLM_ALLREDUCE_USE_SYMM_MEM=0",
      "VLLM_ATTENTION_BACKEND=FLASH_\\\nATTN",
      'VLLM_ATTENTION_BACKEND="FLASH_\\\nATTN"',
    ]
  ) assert.equal(componentMismatch(stack, { env }), null, JSON.stringify(env));
  for (
    const [env, set] of [
      ["VLLM_ATTENTION_BACKEND=FLASH_ATTN \\\nVLLM_ALLREDUCE_USE_SYMM_MEM=1", /SYMM_MEM='1'/],
      // No space before the backslash: a shell reads one value.
      [
        "VLLM_ATTENTION_BACKEND=FLASH_ATTN\\\nVLLM_ALLREDUCE_USE_SYMM_MEM=0",
        /BACKEND='FLASH_ATTNVLLM/,
      ],
      // Inside single quotes a backslash is itself.
      ["VLLM_ATTENTION_BACKEND='FLASH_\\\nATTN'", /BACKEND='FLASH_\\/],
    ] as const
  ) {
    const m = componentMismatch(stack, { env });
    assert.equal(m?.kind, "contradiction", JSON.stringify(env));
    assert.match(m!.reason, set);
  }
  assert.deepEqual(statedSettings({ env: "A=1 \\\nB=2 \\\\\nC=3" }), [
    ["A", "1"],
    ["B", "2"],
    ["C", "3"],
  ]);
});

Deno.test("componentMismatch(): a text whose first number is another library's and which also writes the pinned release states more than a release, not a contradiction", () => {
  // The first dotted number is CUDA's or Python's, not torch's: an honest text must not FAIL.
  for (const value of ["CUDA 12.8 build of 2.8.0", "python 3.12, torch 2.8.0"]) {
    const m = componentMismatch(STACK, { torch: value });
    assert.equal(m?.kind, "unreadable", value);
    assert.match(m!.reason, /states more than a release/, value);
  }
  // Every release it writes excluded: still a contradiction.
  for (const value of ["CUDA 12.8 build of 2.4.0", "python 3.12, torch 2.4.0"]) {
    assert.equal(componentMismatch(STACK, { torch: value })?.kind, "contradiction", value);
  }
});
