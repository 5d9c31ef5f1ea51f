/**
 * Writes `profiles/gpu/*.json` from the published tensor-core characterisations.
 *
 * The profiles are data; this script only keeps them consistent (GPUs of one architecture share
 * datapaths, each datapath cites its sources). Run:
 * `deno run --allow-read --allow-write tools/profiles/generate.ts`, then `deno task manifest`;
 * `tests/hardware/gpu_profiles_generated_test.ts` checks the committed files are its output.
 *
 * @module
 */

const KM =
  "Khattak & Mikaitis, Accurate Models of NVIDIA Tensor Cores, arXiv:2512.07004 v2, Table II";
const KM_CODE = (file: string) =>
  `MATLAB-tensor-core @ b12b5a7, models/${file} (fma, neab, frmode, min_exp_limit; spec tensor_core_khattak_mikaitis.md §9.2)`;
const MMASIM =
  "Xie et al., MMA-Sim, arXiv:2511.10909 v2, Tables 2-5 (F, L, split-K per architecture)";
const KM_FP8_MMA =
  "spec tensor_core_khattak_mikaitis.md §12.3: two interleaved F=25 blocks (k mod 4 in {0,1}, then {2,3}) and a late RNE add of C reproduce all mma.sync fp8 captures of H100, H200 and B200";
const KM_ADA_FP8_F16 =
  "spec tensor_core_khattak_mikaitis.md §12.3: Ada fp8->fp16 reproduced 5000/5000 by 13-bit fused halves, each rounded to fp16 (RNE), as MMA-Sim models it";
const MEASURED = (gpu: string, fmt: string, out: string) =>
  `measured: tests/vectors/khattak-mikaitis/${gpu}/${fmt} d_${gpu}_${out} (5000 cases, must match 100%)`;
const PUBLISHED = "published model only: no measured vectors bundled for this GPU";
/** A datapath of a GPU (or of a peer) whose other datapaths are measured, this one not. */
const NO_CAPTURE = "published model only: no measured vectors bundled for this datapath";
const SAME_ARCH = (gpu: string) =>
  `published model; the same architecture's datapath is checked against measured vectors on ${gpu}`;

type Json = Record<string, unknown>;
const contiguous = { kind: "contiguous" };
const fp8Interleaved = { kind: "interleaved", period: 4, groups: [[0, 1], [2, 3]] };

function dp(
  id: string,
  p: Json & { input: string; output: string },
  sources: string[],
  validation: string,
  note?: string,
): Json {
  return {
    id,
    family: "mma",
    ...p,
    chain: p.chain ?? contiguous,
    accumulator: p.accumulator ?? "early",
    sources,
    validation,
    ...(note === undefined ? {} : { note }),
  };
}

/** Datapaths of the 16-bit and tf32 `mma` instructions, common to sm_80 and later. */
function halfAndTf32(
  arch: { L16: number; Ltf32: number; F: number; floor32: number; floor16: number },
  src: string[],
  v: (fmt: string, out: string) => string,
): Json[] {
  const base = { family: "mma", fracBits: arch.F };
  return [
    dp(
      "mma-fp16-fp32",
      {
        ...base,
        input: "fp16",
        output: "fp32",
        k: 16,
        blockSize: arch.L16,
        resultFormat: "fp32",
        rounding: "rz",
        alignFloor: arch.floor32,
      },
      src,
      v("fp16", "fp32.txt"),
    ),
    dp(
      "mma-fp16-fp16",
      {
        ...base,
        input: "fp16",
        output: "fp16",
        k: 16,
        blockSize: arch.L16,
        resultFormat: "fp16",
        rounding: "rne",
        alignFloor: arch.floor16,
      },
      src,
      v("fp16", "fp16.txt"),
    ),
    dp(
      "mma-bf16-fp32",
      {
        ...base,
        input: "bf16",
        output: "fp32",
        k: 16,
        blockSize: arch.L16,
        resultFormat: "fp32",
        rounding: "rz",
        alignFloor: arch.floor32,
      },
      src,
      v("bf16", "fp32.txt"),
    ),
    dp(
      "mma-tf32-fp32",
      {
        ...base,
        input: "tf32",
        output: "fp32",
        k: 8,
        blockSize: arch.Ltf32,
        resultFormat: "fp32",
        rounding: "rz",
        alignFloor: arch.floor32,
      },
      src,
      v("tf32", "fp32.txt"),
    ),
  ];
}

function ampere(v: (fmt: string, out: string) => string): Json[] {
  return halfAndTf32({ L16: 8, Ltf32: 4, F: 24, floor32: -132, floor16: -20 }, [
    KM,
    KM_CODE("A100TC.m"),
    MMASIM,
  ], v);
}

function ada(v: (fmt: string, out: string) => string): Json[] {
  const src = [KM, KM_CODE("AdaTC.m / L40STC.m"), MMASIM];
  const fp8 = (input: string): Json[] => [
    dp(
      `mma-${input}-fp32`,
      {
        input,
        output: "fp32",
        k: 32,
        blockSize: 16,
        fracBits: 13,
        resultFormat: "e8m13",
        rounding: "rz",
        alignFloor: -132,
      },
      src,
      v(input.toUpperCase(), "fp32.txt"),
    ),
    dp(
      `mma-${input}-fp16`,
      {
        input,
        output: "fp16",
        k: 32,
        blockSize: 16,
        fracBits: 13,
        resultFormat: "fp16",
        rounding: "rne",
        alignFloor: -132,
      },
      [...src, KM_ADA_FP8_F16],
      v(input.toUpperCase(), "fp16.txt"),
      "The MATLAB model degenerates here (M = 0 output bits); measured data follows MMA-Sim's 13-bit blocks rounded to fp16, so that rule is used.",
    ),
  ];
  return [
    ...halfAndTf32({ L16: 8, Ltf32: 4, F: 24, floor32: -132, floor16: -20 }, src, v),
    ...fp8("e4m3"),
    ...fp8("e5m2"),
  ];
}

function hopperLike(
  v: (fmt: string, out: string) => string,
  model: string,
  wide: "wgmma" | "tcgen05" | null,
): Json[] {
  const src = [KM, KM_CODE(model), MMASIM];
  const out: Json[] = halfAndTf32(
    { L16: 16, Ltf32: 8, F: 25, floor32: -133, floor16: -21 },
    src,
    v,
  );
  for (const input of ["e4m3", "e5m2"]) {
    const note =
      "The published MATLAB H100 model gives mma fp8 a native 32-wide F=13 datapath; the measured mma.sync captures contradict it and are reproduced only by the interleaved two-block rule with a late C add, so the measured behaviour is used.";
    for (const [output, rounding, floor] of [["fp32", "rz", -133], ["fp16", "rne", -21]] as const) {
      out.push(
        dp(
          `mma-${input}-${output}`,
          {
            input,
            output,
            k: 32,
            blockSize: 16,
            fracBits: 25,
            resultFormat: output,
            rounding,
            alignFloor: floor,
            chain: fp8Interleaved,
            accumulator: "late",
          },
          [...src, KM_FP8_MMA],
          v(input.toUpperCase(), output === "fp16" ? "fp16.txt" : "mma-fp32"),
          note,
        ),
      );
    }
  }
  if (wide === "wgmma") {
    out.push(
      dp(
        "wgmma-bf16-fp32",
        {
          family: "wgmma",
          input: "bf16",
          output: "fp32",
          k: 16,
          blockSize: 16,
          fracBits: 25,
          resultFormat: "fp32",
          rounding: "rz",
          alignFloor: -133,
        },
        src,
        NO_CAPTURE + " (the same F and L as H100's measured mma; no wgmma capture of this format)",
      ),
    );
    out.push(
      dp(
        "wgmma-fp16-fp32",
        {
          family: "wgmma",
          input: "fp16",
          output: "fp32",
          k: 16,
          blockSize: 16,
          fracBits: 25,
          resultFormat: "fp32",
          rounding: "rz",
          alignFloor: -133,
        },
        src,
        NO_CAPTURE + " (the same F and L as H100's measured mma; no wgmma capture of this format)",
      ),
    );
    out.push(
      dp(
        "wgmma-tf32-fp32",
        {
          family: "wgmma",
          input: "tf32",
          output: "fp32",
          k: 8,
          blockSize: 8,
          fracBits: 25,
          resultFormat: "fp32",
          rounding: "rz",
          alignFloor: -133,
        },
        src,
        NO_CAPTURE + " (the same F and L as H100's measured mma; no wgmma capture of this format)",
      ),
    );
    for (const input of ["e4m3", "e5m2"]) {
      out.push(
        dp(
          `wgmma-${input}-fp32`,
          {
            family: "wgmma",
            input,
            output: "fp32",
            k: 32,
            blockSize: 32,
            fracBits: 13,
            resultFormat: "e8m13",
            rounding: "rz",
            alignFloor: -133,
          },
          src,
          v(input.toUpperCase(), "fp32.txt"),
        ),
      );
      out.push(
        dp(
          `wgmma-${input}-fp16`,
          {
            family: "wgmma",
            input,
            output: "fp16",
            k: 32,
            blockSize: 32,
            fracBits: 13,
            resultFormat: "fp16",
            rounding: "rne",
            alignFloor: -133,
          },
          [MMASIM],
          NO_CAPTURE,
        ),
      );
    }
  }
  if (wide === "tcgen05") {
    for (const input of ["e4m3", "e5m2"]) {
      out.push(
        dp(
          `tcgen05-${input}-fp32`,
          {
            family: "tcgen05",
            input,
            output: "fp32",
            k: 32,
            blockSize: 32,
            fracBits: 25,
            resultFormat: "fp32",
            rounding: "rz",
            alignFloor: -133,
          },
          [KM, KM_CODE("B200TC.m"), MMASIM],
          PUBLISHED,
        ),
      );
    }
    out.push(
      dp(
        "tcgen05-bf16-fp32",
        {
          family: "tcgen05",
          input: "bf16",
          output: "fp32",
          k: 16,
          blockSize: 16,
          fracBits: 25,
          resultFormat: "fp32",
          rounding: "rz",
          alignFloor: -133,
        },
        [MMASIM],
        PUBLISHED,
      ),
    );
  }
  return out;
}

function rtxBlackwell(): Json[] {
  const src = [KM, KM_CODE("RTXPRO6000TC.m (alias of B200TC.m)"), MMASIM];
  const out = halfAndTf32(
    { L16: 16, Ltf32: 8, F: 25, floor32: -133, floor16: -21 },
    src,
    () => PUBLISHED,
  );
  for (const input of ["e4m3", "e5m2"]) {
    out.push(
      dp(
        `mma-${input}-fp32`,
        {
          input,
          output: "fp32",
          k: 32,
          blockSize: 32,
          fracBits: 25,
          resultFormat: "fp32",
          rounding: "rz",
          alignFloor: -133,
        },
        [MMASIM, KM_CODE("B200TC.m")],
        PUBLISHED,
        "MMA-Sim models RTX Blackwell mma fp8 as one 32-product F=25 block with C inside; no measured data bundled.",
      ),
    );
  }
  return out;
}

function volta(): Json[] {
  const src = [KM, KM_CODE("V100TC.m"), MMASIM];
  return [
    dp(
      "mma-fp16-fp32",
      {
        input: "fp16",
        output: "fp32",
        k: 16,
        blockSize: 4,
        fracBits: 23,
        resultFormat: "fp32",
        rounding: "rz",
        alignFloor: null,
      },
      src,
      PUBLISHED,
    ),
    dp(
      "mma-fp16-fp16",
      {
        input: "fp16",
        output: "fp16",
        k: 16,
        blockSize: 4,
        fracBits: 23,
        resultFormat: "fp16",
        rounding: "rne",
        alignFloor: -19,
      },
      src,
      PUBLISHED,
    ),
  ];
}

type Validation = (fmt: string, out: string) => string;

const measured = (gpu: string): Validation => (fmt, out) =>
  out === "mma-fp32" ? PUBLISHED : MEASURED(gpu, fmt, out);
/**
 * A GPU of the same architecture as a measured peer: each datapath names the peer only where the
 * peer's own datapath is measured; elsewhere it is the published model, as the peer's is.
 */
const sameAs = (gpu: string, peer: Validation): Validation => (fmt, out) =>
  peer(fmt, out).startsWith("measured:") ? SAME_ARCH(gpu) : NO_CAPTURE;
// H100's fp8 mma with FP32 output has no bundled capture (K&M's B200 captures are another
// architecture, and the fp16 output of the same rule rounds differently): the published model.
const h100v: Validation = (fmt, out) =>
  out === "mma-fp32" ? NO_CAPTURE : MEASURED("H100", fmt, out);
const l40sv: Validation = (fmt, out) =>
  fmt.startsWith("E") && out === "fp16.txt"
    ? PUBLISHED + " (K&M's Ada RTX 1000 fp16 captures are not bundled)"
    : MEASURED("L40S", fmt, out);

/**
 * How a part links to its peers (`links`, `src/hardware/gpu_links.ts`), from NVIDIA's data sheets:
 * each source names its document and the link fact it states.
 */
interface Links {
  nvlink: ("none" | "bridge-pair" | "hybrid-cube-mesh" | "nvswitch")[];
  sources: string[];
  note?: string;
}

/** A part without NVLink: its data sheet lists PCIe only. */
const pcieOnly = (source: string): Links => ({ nvlink: ["none"], sources: [source] });
/** A part whose NVLink bridge joins two cards. */
const bridgePair = (source: string): Links => ({ nvlink: ["bridge-pair"], sources: [source] });
/** SXM modules on a board that NVLink-connects every GPU. */
const nvswitch = (...sources: string[]): Links => ({ nvlink: ["nvswitch"], sources });

interface Gpu {
  id: string;
  name: string;
  architecture: string;
  cc: string;
  aliases: string[];
  links: Links;
  datapaths: Json[];
}

const GPUS: Gpu[] = [
  {
    id: "v100",
    name: "NVIDIA Tesla V100",
    architecture: "sm_70",
    cc: "7.0",
    aliases: ["V100"],
    links: {
      nvlink: ["none", "hybrid-cube-mesh", "nvswitch"],
      sources: [
        "NVIDIA Tesla V100 GPU Accelerator datasheet: V100 PCIe interconnect PCIe Gen3 32 GB/s, no NVLink; V100 SXM2 NVLink 300 GB/s",
        "NVIDIA DGX-1 With Tesla V100 System Architecture white paper: eight SXM2 modules in a hybrid cube-mesh, each NVLink-connected to the three others of its group of four and to one module of the other group",
        "NVIDIA DGX-2 datasheet: sixteen V100 SXM3 modules linked through twelve NVSwitch chips",
      ],
      note:
        "The profile stands for every V100 form (PCIe card, SXM2 module in DGX-1's cube-mesh, SXM3 module on DGX-2's NVSwitch), whose tensor cores are the same: nothing is assumed of the links, and a record states its interconnect where the all-reduce path depends on it.",
    },
    datapaths: volta(),
  },
  {
    id: "a100",
    name: "NVIDIA A100",
    architecture: "sm_80",
    cc: "8.0",
    aliases: ["A100"],
    links: {
      nvlink: ["nvswitch", "bridge-pair"],
      sources: [
        "NVIDIA A100 Tensor Core GPU datasheet: A100 SXM NVLink 600 GB/s on HGX A100 boards (4 or 8 GPUs) and DGX A100 (8 GPUs through six NVSwitch chips); A100 PCIe NVLink Bridge for 2 GPUs, 600 GB/s",
        "NVIDIA A100 40GB PCIe GPU Accelerator product brief (PB-10137-001): NVLink bridges join two cards",
      ],
      note:
        "The profile stands for both A100 forms (SXM4 module on an NVLink board, PCIe card bridged in pairs or not at all), whose tensor cores are the same: nothing is assumed of the links, and a record states its interconnect where the all-reduce path depends on it.",
    },
    datapaths: ampere(measured("A100")),
  },
  {
    id: "a30",
    name: "NVIDIA A30",
    architecture: "sm_80",
    cc: "8.0",
    aliases: ["A30"],
    links: bridgePair(
      "NVIDIA A30 Tensor Core GPU datasheet: third-generation NVLink 200 GB/s through an NVLink bridge joining two GPUs; PCIe Gen4 64 GB/s",
    ),
    datapaths: ampere(sameAs("A100", measured("A100"))),
  },
  {
    id: "a2",
    name: "NVIDIA A2",
    architecture: "sm_86",
    cc: "8.6",
    aliases: ["A2"],
    links: pcieOnly("NVIDIA A2 Tensor Core GPU datasheet: interconnect PCIe Gen4 x8; no NVLink"),
    datapaths: ampere(() => PUBLISHED + " (sm_86: A100, the measured Ampere part, is sm_80)"),
  },
  {
    id: "a40",
    name: "NVIDIA A40",
    architecture: "sm_86",
    cc: "8.6",
    aliases: ["A40"],
    links: bridgePair(
      "NVIDIA A40 GPU Accelerator product brief (PB-09976-001): NVLink 112.5 GB/s bidirectional through a 2-way bridge joining two cards; PCIe Gen4 x16",
    ),
    datapaths: ampere(() => PUBLISHED + " (sm_86: A100, the measured Ampere part, is sm_80)"),
  },
  {
    id: "l4",
    name: "NVIDIA L4",
    architecture: "sm_89",
    cc: "8.9",
    aliases: ["L4"],
    links: pcieOnly(
      "NVIDIA L4 Tensor Core GPU datasheet: interconnect PCIe Gen4 x16 64 GB/s; no NVLink",
    ),
    datapaths: ada(sameAs("L40S", l40sv)),
  },
  {
    id: "l40",
    name: "NVIDIA L40",
    architecture: "sm_89",
    cc: "8.9",
    aliases: ["L40"],
    links: pcieOnly("NVIDIA L40 GPU datasheet: NVLink support: no; interconnect PCIe Gen4 x16"),
    datapaths: ada(sameAs("L40S", l40sv)),
  },
  {
    id: "l40s",
    name: "NVIDIA L40S",
    architecture: "sm_89",
    cc: "8.9",
    aliases: ["L40S"],
    links: pcieOnly(
      "NVIDIA L40S GPU datasheet: NVLink support: no; interconnect PCIe Gen4 x16 64 GB/s",
    ),
    datapaths: ada(l40sv),
  },
  {
    id: "rtx-1000-ada",
    name: "NVIDIA RTX 1000 Ada Generation",
    architecture: "sm_89",
    cc: "8.9",
    aliases: ["RTX 1000 Ada"],
    links: pcieOnly(
      "NVIDIA RTX 1000 Ada Generation datasheet: interconnect PCIe Gen4 x8; no NVLink",
    ),
    datapaths: ada(sameAs("L40S", l40sv)),
  },
  {
    id: "h100-sxm",
    name: "NVIDIA H100 SXM5",
    architecture: "sm_90",
    cc: "9.0",
    aliases: ["H100", "H100 SXM", "H100 80GB HBM3"],
    links: nvswitch(
      "NVIDIA H100 Tensor Core GPU datasheet: H100 SXM NVLink 900 GB/s on HGX H100 boards (4 or 8 GPUs) and DGX H100 (8 GPUs)",
      "NVIDIA H100 Tensor Core GPU Architecture white paper: the 8-GPU HGX H100 board links every GPU through four third-generation NVSwitch chips",
    ),
    datapaths: hopperLike(h100v, "H100TC.m", "wgmma"),
  },
  {
    id: "h100-pcie",
    name: "NVIDIA H100 PCIe",
    architecture: "sm_90",
    cc: "9.0",
    aliases: ["H100 PCIe"],
    links: bridgePair(
      "NVIDIA H100 PCIe GPU product brief: NVLink 600 GB/s through NVLink bridges joining two cards; PCIe Gen5 128 GB/s",
    ),
    datapaths: hopperLike(sameAs("H100", h100v), "H100TC.m", "wgmma"),
  },
  {
    id: "h100-nvl",
    name: "NVIDIA H100 NVL",
    architecture: "sm_90",
    cc: "9.0",
    aliases: ["H100 NVL"],
    links: bridgePair(
      "NVIDIA H100 Tensor Core GPU datasheet: H100 NVL NVLink 600 GB/s through NVLink bridges joining two cards; PCIe Gen5 128 GB/s",
    ),
    datapaths: hopperLike(sameAs("H100", h100v), "H100TC.m", "wgmma"),
  },
  {
    id: "h200",
    name: "NVIDIA H200",
    architecture: "sm_90",
    cc: "9.0",
    aliases: ["H200"],
    links: nvswitch(
      "NVIDIA H200 Tensor Core GPU datasheet: H200 SXM NVLink 900 GB/s on HGX H200 boards (4 or 8 GPUs); the H200 NVL (PCIe cards, 2- or 4-way NVLink bridge) is another part",
    ),
    datapaths: hopperLike(sameAs("H100", h100v), "H200TC.m (alias of H100TC.m)", "wgmma"),
  },
  {
    id: "gh200",
    name: "NVIDIA GH200 Grace Hopper",
    architecture: "sm_90",
    cc: "9.0",
    aliases: ["GH200"],
    links: nvswitch(
      "NVIDIA GH200 Grace Hopper Superchip datasheet: GPU NVLink 900 GB/s; GH200 NVL32 links 32 superchips through NVLink Switch, GH200 NVL2 links two superchips directly",
    ),
    datapaths: hopperLike(sameAs("H100", h100v), "H100TC.m (README: also GH200)", "wgmma"),
  },
  {
    id: "b200",
    name: "NVIDIA B200",
    architecture: "sm_100",
    cc: "10.0",
    aliases: ["B200"],
    links: nvswitch(
      "NVIDIA DGX B200 datasheet: eight B200 GPUs linked by fifth-generation NVLink (1.8 TB/s per GPU) through NVSwitch chips",
    ),
    datapaths: hopperLike(
      () => PUBLISHED + " (K&M B200 captures not bundled)",
      "B200TC.m",
      "tcgen05",
    ),
  },
  {
    id: "rtx-pro-6000-blackwell",
    name: "NVIDIA RTX PRO 6000 Blackwell",
    architecture: "sm_120",
    cc: "12.0",
    aliases: ["RTX PRO 6000"],
    links: pcieOnly(
      "NVIDIA RTX PRO 6000 Blackwell datasheets (Workstation, Max-Q and Server Editions): interconnect PCIe Gen5 x16; no NVLink",
    ),
    datapaths: rtxBlackwell(),
  },
];

/**
 * The GPU profiles this script writes, each as the exact text of its file.
 *
 * @returns one `{ id, text }` per GPU (the file is `profiles/gpu/<id>.json`)
 */
export function generateGpuProfiles(): { id: string; text: string }[] {
  return GPUS.map((g) => {
    const profile = {
      schema: "bitaudit.gpu-profile/v1",
      id: g.id,
      name: g.name,
      architecture: g.architecture,
      computeCapability: g.cc,
      aliases: g.aliases,
      sources: [KM, MMASIM, "NVIDIA PTX ISA 8.7 §9.7.14-9.7.16 (instruction availability)"],
      links: g.links,
      tensorCore: { datapaths: g.datapaths },
    };
    return { id: g.id, text: JSON.stringify(profile, null, 2) + "\n" };
  });
}

if (import.meta.main) {
  const root = new URL("../../profiles/gpu/", import.meta.url);
  await Deno.mkdir(root, { recursive: true });
  const profiles = generateGpuProfiles();
  for (const p of profiles) await Deno.writeTextFile(new URL(`${p.id}.json`, root), p.text);
  console.log(`wrote ${profiles.length} profiles`);
}
