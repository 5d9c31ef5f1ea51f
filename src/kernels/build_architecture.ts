/**
 * `buildArchitectureGap`: whether the code a stack pins a build of (its `nvcc` options) can load
 * on a GPU architecture at all. nvcc's `-arch=sm_XY` (`--gpu-architecture`) is shorthand for
 * `-arch=compute_XY -code=sm_XY,compute_XY`: the binary holds SASS for sm_XY and PTX for
 * compute_XY (NVIDIA, "NVCC: CUDA Compiler Driver", option `--gpu-architecture`). A cubin for
 * compute capability X.y runs only on X.z with z >= y; PTX for X.y is compiled by the driver for
 * any compute capability >= X.y (NVIDIA, "CUDA C++ Programming Guide", sections "Binary
 * Compatibility" and "PTX Compatibility"). Code for an architecture-specific target (`sm_90a`,
 * `compute_90a`) runs on that compute capability alone (same guide, "Feature Availability").
 * So a build embeds images, and it loads where one of them does.
 *
 * @module
 */

/** One image a build embeds: SASS (`sm_`) or PTX (`compute_`) of one compute capability. */
interface _Image {
  readonly kind: "sm" | "compute";
  readonly major: number;
  readonly minor: number;
  /** An architecture-specific (`a`) target: that compute capability alone. */
  readonly specific: boolean;
  /** As written (`sm_80`). */
  readonly name: string;
}

/**
 * Why code built with a stack's pinned nvcc options cannot load on a GPU architecture, or null
 * (it can, the stack pins no nvcc options, or they name targets this reading does not know:
 * `native`, `all`, a family-specific `f` target, which pin nothing here).
 *
 * @param components the stack profile's `components` (its `nvcc` value is read)
 * @param architecture the GPU profile's architecture (`sm_70`; the compute capability is its
 *   number: tens the major, units the minor, so `sm_120` is 12.0)
 * @returns one line naming the options, what they embed, where that loads, and the GPU's
 *   architecture; or null
 * @example
 * ```ts
 * import { buildArchitectureGap } from "./build_architecture.ts";
 * const stack = { cutlass: "3.5.0", nvcc: "-arch=sm_80 -O2" };
 * if (buildArchitectureGap(stack, "sm_70") === null) throw new Error();
 * for (const gpu of ["sm_80", "sm_86", "sm_90", "sm_120"]) {
 *   if (buildArchitectureGap(stack, gpu) !== null) throw new Error(gpu);
 * }
 * if (buildArchitectureGap({ nvcc: "-arch=sm_90a" }, "sm_100") === null) throw new Error();
 * if (buildArchitectureGap({ pytorch: "2.8.0" }, "sm_70") !== null) throw new Error();
 * ```
 */
export function buildArchitectureGap(
  components: Readonly<Record<string, string>>,
  architecture: string,
): string | null {
  const nvcc = Object.hasOwn(components, "nvcc") ? components.nvcc : undefined;
  const gpu = _capability(/^sm_(\d+)$/.exec(architecture)?.[1]);
  if (nvcc === undefined || gpu === null) return null;
  const images = _images(nvcc);
  if (images === null || images.length === 0) return null;
  if (images.some((i) => _loads(i, gpu))) return null;
  const where = images.map((i) => `${i.kind === "sm" ? "SASS" : "PTX"} ${i.name} (${_range(i)})`)
    .join(", ");
  return `nvcc '${nvcc}' builds ${where}, none of which loads on ${architecture} ` +
    `(compute capability ${gpu.major}.${gpu.minor})`;
}

/** Whether an image runs on a compute capability. */
function _loads(i: _Image, gpu: { major: number; minor: number }): boolean {
  if (i.specific) return gpu.major === i.major && gpu.minor === i.minor;
  if (i.kind === "sm") return gpu.major === i.major && gpu.minor >= i.minor;
  return gpu.major > i.major || (gpu.major === i.major && gpu.minor >= i.minor);
}

/** Where an image runs, in words. */
function _range(i: _Image): string {
  const cc = `${i.major}.${i.minor}`;
  if (i.specific) return `compute capability ${cc} only`;
  if (i.kind === "sm") return `compute capability ${i.major}.${i.minor} to ${i.major}.9`;
  return `compute capability ${cc} or later`;
}

/**
 * The images nvcc options embed: each `-arch`/`--gpu-architecture` (shorthand for its SASS and
 * PTX when it names `sm_XY`; PTX alone for `compute_XY`) and each `-gencode`/`--generate-code
 * arch=compute_XY,code=...` (its `code` list); null when a target cannot be read or `-code`
 * narrows what `-arch` embeds.
 */
function _images(nvcc: string): _Image[] | null {
  const out: _Image[] = [];
  const words = nvcc.trim().split(/\s+/);
  for (let i = 0; i < words.length; i++) {
    const w = words[i]!;
    // `-code` with `-arch` embeds what `-code` lists alone: not read here.
    if (/^(?:-code|--gpu-code)(?:=|$)/.test(w)) return null;
    const arch = /^(?:-arch|--gpu-architecture)(?:=(.*))?$/.exec(w);
    const gencode = /^(?:-gencode|--generate-code)(?:=(.*))?$/.exec(w);
    const value = arch?.[1] ?? gencode?.[1] ?? (arch ?? gencode ? words[++i] : undefined);
    if (arch !== null) {
      const t = _target(value ?? "");
      if (t === null) return null;
      out.push(t);
      if (t.kind === "sm") out.push({ ...t, kind: "compute", name: `compute_${t.name.slice(3)}` });
    } else if (gencode !== null) {
      const m = /^arch=compute_\w+,code=(?:\[([^\]]*)\]|"([^"]*)"|([^,\s]+))$/.exec(value ?? "");
      if (m === null) return null;
      for (const c of (m[1] ?? m[2] ?? m[3]!).split(",")) {
        const t = _target(c.trim());
        if (t === null) return null;
        out.push(t);
      }
    }
  }
  return out;
}

/** `sm_80`, `compute_90a`: the image, or null for another target (`native`, `all`, `sm_100f`). */
function _target(name: string): _Image | null {
  const m = /^(sm|compute)_(\d+)(a?)$/.exec(name);
  const cc = _capability(m?.[2]);
  if (m === null || cc === null) return null;
  return { kind: m[1] as "sm" | "compute", ...cc, specific: m[3] === "a", name };
}

/** `80` -> 8.0, `120` -> 12.0. */
function _capability(digits: string | undefined): { major: number; minor: number } | null {
  if (digits === undefined || digits.length < 2 || digits.length > 3) return null;
  const n = Number(digits);
  return { major: Math.floor(n / 10), minor: n % 10 };
}
