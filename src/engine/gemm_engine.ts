/**
 * The fast bit-exact GEMM engine: the compiled WebAssembly SIMD kernel behind a checked API,
 * with an explicit fallback to the plain reference for datapaths it does not cover.
 *
 * @module
 */
import {
  checkKWalkOperands,
  type Datapath,
  gatherSegments,
  type KWalkGemmOperands,
  kWalkReference,
} from "../hardware/mod.ts";
import type { Fa2Build, Fa2TileSoftmax } from "../kernels/mod.ts";
import { BF16, FP16, FP32 } from "../numerics/mod.ts";
import { wasmFa2TileSoftmax } from "./fa2_tile_softmax.ts";
import { type GatheredWalk, instantiateKernel, kernelParams } from "./wasm_kernel.ts";

/** A GEMM engine bound to one compiled kernel module. */
export interface GemmEngine {
  /** The compiled module (post it to pool workers). */
  readonly module: WebAssembly.Module;
  /** Whether the kernel covers this datapath (see {@link engineSupports}). */
  supports(dp: Datapath): boolean;
  /**
   * K-walk on the kernel; same contract and bits as `kWalkReference`.
   * @throws {RangeError} when the datapath is not supported or the operands are malformed
   */
  kWalk(dp: Datapath, ops: KWalkGemmOperands): Uint32Array;
  /** The kernel when it supports `dp`, else `kWalkReference` (same bits either way). */
  kWalkAuto(dp: Datapath, ops: KWalkGemmOperands): Uint32Array;
  /**
   * FA2's tile softmax on the kernel for a build and MUFU model it models (the table-model or the
   * `ieee` SFU), else undefined (FA2 then runs its TypeScript step; same bits either way).
   */
  fa2TileSoftmax(build: Fa2Build, mufu: object): Fa2TileSoftmax | undefined;
}

/**
 * Whether the kernel covers a datapath: contiguous chain, early accumulator, bf16/fp16 input,
 * fp32 output and result grid, round-toward-zero, a block size that 4 divides (the kernel reads
 * k four at a time) and that divides k, and lane sums that fit 31 bits
 * (L * (2^(F+2) - 1) < 2^31) with F in [10, 28].
 *
 * @param dp a datapath
 * @returns true when `kWalk` may run it
 * @example
 * ```ts
 * import { engineSupports } from "./gemm_engine.ts";
 * import { BF16, FP32 } from "../numerics/mod.ts";
 * const a100 = {
 *   family: "mma", input: BF16, output: FP32, k: 16, blockSize: 8, fracBits: 24,
 *   resultFormat: FP32, rounding: "rz", alignFloor: -132, chain: { kind: "contiguous" },
 *   accumulator: "early",
 * } as const;
 * if (!engineSupports(a100)) throw new Error();
 * if (engineSupports({ ...a100, rounding: "rne" })) throw new Error();
 * ```
 */
export function engineSupports(dp: Datapath): boolean {
  const L = dp.blockSize;
  const F = dp.fracBits;
  return dp.chain.kind === "contiguous" && dp.accumulator === "early" &&
    (dp.input === BF16 || dp.input === FP16) && dp.output === FP32 &&
    dp.resultFormat === FP32 && dp.rounding === "rz" && Number.isInteger(L) && L >= 4 &&
    L % 4 === 0 && dp.k % L === 0 && Number.isInteger(F) && F >= 10 && F <= 28 &&
    L * (2 ** (F + 2) - 1) <= 2 ** 31 - 1 &&
    (dp.alignFloor === null || (Number.isInteger(dp.alignFloor) && dp.alignFloor > -10000));
}

/**
 * Compiles the kernel and binds an engine to it. Pure: the bytes must come from the asset
 * loader, which has checked their digest.
 *
 * @param wasmBytes the compiled module bytes (`tables/wasm/gemm_engine.wasm`)
 * @returns the engine
 * @throws {TypeError} when the bytes are not the expected module
 * @example
 * ```ts ignore
 * const engine = createGemmEngine(await store.read("wasm/gemm_engine.wasm"));
 * const c = engine.kWalk(dp, { a, b, m, n, k });
 * ```
 */
export function createGemmEngine(wasmBytes: Uint8Array): GemmEngine {
  let module: WebAssembly.Module;
  try {
    module = new WebAssembly.Module(wasmBytes as Uint8Array<ArrayBuffer>);
  } catch (e) {
    throw new TypeError(`Cannot create GEMM engine: the module does not compile (${e})`);
  }
  return engineFromModule(module);
}

/**
 * Binds an engine to an already compiled kernel module (e.g. one posted to a worker by a pool;
 * the module was compiled from digest-checked bytes by {@link createGemmEngine}).
 *
 * @param module the compiled kernel module
 * @returns the engine
 * @throws {TypeError} when the module lacks the kernel's exports
 * @example
 * ```ts ignore
 * const engine = engineFromModule(message.module);
 * ```
 */
export function engineFromModule(module: WebAssembly.Module): GemmEngine {
  const kernel = instantiateKernel(module);
  const kWalk = (dp: Datapath, ops: KWalkGemmOperands): Uint32Array => {
    if (!engineSupports(dp)) {
      throw new RangeError("Cannot run the GEMM engine: datapath not supported by the kernel");
    }
    // The kernel copies the operands into its memory before returning: views suffice.
    const job = prepareWalk(dp, { ...ops, readInPlace: true });
    kernel.walkColumns(kernelParams(dp), job, { j0: 0, j1: ops.n }, ops.bMemo);
    return job.c;
  };
  return {
    module,
    supports: engineSupports,
    kWalk,
    kWalkAuto: (dp, ops) => engineSupports(dp) ? kWalk(dp, ops) : kWalkReference(dp, ops),
    fa2TileSoftmax: (build, mufu) => wasmFa2TileSoftmax(kernel, build, mufu),
  };
}

/**
 * Checks operands and gathers them into the kernel's padded layout.
 *
 * @param dp the datapath (its k sets the padding)
 * @param ops the operands, plus `alloc`, which hands out zero-filled bytes for the buffers (e.g.
 *   ranges of a pool's shared arena; default fresh Uint8Arrays), `reuseShared`: when true, an operand that
 *   already lies on a SharedArrayBuffer with its rows in place (one whole segment, k a multiple
 *   of `dp.k`) is used as is, not copied, and `readInPlace`: the same for an operand on any
 *   buffer (for a caller that reads the gathered operands before it returns), whose
 *   accumulators are then `ops.out` when given
 * @returns gathered A, B, shape, kp and the accumulators initialised from `ops.init`
 *   (views of exactly the shapes' lengths)
 * @throws {RangeError} on shape or segment errors
 * @example
 * ```ts ignore
 * const job = prepareWalk(dp, { a, b, m, n, k });
 * ```
 */
export function prepareWalk(
  dp: Datapath,
  ops: KWalkGemmOperands & {
    readonly alloc?: (bytes: number) => Uint8Array;
    readonly reuseShared?: boolean;
    readonly readInPlace?: boolean;
  },
): GatheredWalk {
  const alloc = ops.alloc ?? ((bytes: number) => new Uint8Array(bytes));
  const segments = checkKWalkOperands(ops);
  const { m, n, k } = ops;
  const gather = (src: Uint16Array, rows: number) =>
    gatherSegments(src, {
      rows,
      k,
      segments,
      multiple: dp.k,
      alloc,
      reuse: ops.readInPlace === true ||
        (ops.reuseShared === true && src.buffer instanceof SharedArrayBuffer),
    });
  const ga = gather(ops.a, m);
  const gb = gather(ops.b, n);
  // A caller's `out` holds the accumulators when the walk reads in place (the kernel's copies
  // are made on this thread), else they go on `alloc`'s bytes (e.g. shared with workers).
  const c = ops.out !== undefined && ops.readInPlace === true ? ops.out : _cOn(alloc, m * n);
  if (ops.init === undefined) {
    if (c === ops.out) c.fill(0);
  } else if (c !== ops.init) c.set(ops.init);
  return { a: ga.data, b: gb.data, m, n, kp: ga.kp, c };
}

/** Zero-filled accumulators on `alloc`'s bytes. */
function _cOn(alloc: (bytes: number) => Uint8Array, count: number): Uint32Array {
  const room = alloc(count * 4);
  return new Uint32Array(room.buffer, room.byteOffset, count);
}
