/**
 * The outcome of planning a block: a plan that fixes every kernel, or the reason the emulator
 * cannot reproduce that configuration (which a verifier reports as NOT_VERIFIED, never PASS).
 *
 * @module
 */
import { type Datapath, findDatapath } from "../../hardware/mod.ts";
import {
  type GemmRecipe,
  type ReduceStack,
  type StackOperators,
  stackOperators,
} from "../../kernels/mod.ts";
import { type BlockRuntime, gemmCallOf, layerCalls, type ProjectionName } from "../decoder/mod.ts";
import { denseLayerConfig, type DenseLayerShape } from "./layer_shape.ts";

/** A plan, or why there is none. */
export type BlockSupport<P> =
  | { readonly supported: true; readonly plan: P }
  | { readonly supported: false; readonly reason: string };

/** What every block plan fixes: the datapath, the reduce tree and each projection's recipe. */
export interface BlockPlanBase {
  /** Tokens (rows of every activation). */
  readonly tokens: number;
  /** The BF16 -> FP32 tensor-core datapath of the profile. */
  readonly datapath: Datapath;
  /** Reduce-kernel facts of the stack's torch version (RMSNorm sums). */
  readonly reduceStack: ReduceStack;
  /** The recipe of each projection. */
  readonly recipes: Readonly<Partial<Record<ProjectionName, GemmRecipe>>>;
  /** The stack's operators for block claims (attention backend, reductions, activation). */
  readonly ops: StackOperators;
}

/** Thrown inside planning to end it with a reason; {@link _supportOf} turns it into the reason. */
export class _Unsupported extends Error {
  /** @param reason why the configuration cannot be emulated */
  constructor(readonly reason: string) {
    super(reason);
  }
}

/**
 * Runs a planning step, turning an {@link _Unsupported} into the reason.
 *
 * @param plan the planning step
 * @returns its plan, or the reason it gave up
 * @throws what the step throws besides {@link _Unsupported}
 */
export function _supportOf<P>(plan: () => P): BlockSupport<P> {
  try {
    return { supported: true, plan: plan() };
  } catch (e) {
    if (e instanceof _Unsupported) return { supported: false, reason: e.reason };
    throw e;
  }
}

/**
 * Resolves what every block needs: the datapath, the torch reduce stack and the recipe of each
 * linear the one decoder layer's sublayer runs (`layerCalls`) at M = tokens.
 *
 * @param runtime how the block ran
 * @param options tokens, the layer's sizes and which sublayer the block is
 * @returns the base plan
 * @throws {_Unsupported} with the reason when something is not modelled or not covered
 * @throws {RangeError} on a token count outside 1..2^20
 */
export function planBase(
  runtime: BlockRuntime,
  options: {
    readonly tokens: number;
    readonly shape: DenseLayerShape;
    readonly sublayer: "attention" | "mlp";
  },
): BlockPlanBase {
  const { tokens } = options;
  if (!Number.isSafeInteger(tokens) || tokens < 1 || tokens > 1 << 20) {
    throw new RangeError(`Cannot plan block: tokens must be an integer in 1..2^20, got ${tokens}`);
  }
  const support = stackOperators(runtime.stack, {
    driver: "block",
    moe: false,
    attention: options.sublayer === "attention",
  });
  if (!support.supported) throw new _Unsupported(support.reason);
  const { ops } = support;
  if (ops.layer.id !== "torch") {
    throw new _Unsupported(
      `block claims are modelled for HF Transformers stacks; stack '${runtime.stack.id}' runs ` +
        `layer kernels '${ops.layer.id}' (verify its forward or served sequences instead)`,
    );
  }
  const datapath = findDatapath(runtime.profile, { input: "bf16", output: "fp32" });
  if (datapath === undefined) {
    throw new _Unsupported(`profile '${runtime.profile.id}' has no bf16->fp32 mma datapath`);
  }
  const recipes: Partial<Record<ProjectionName, GemmRecipe>> = {};
  for (const linear of layerCalls(denseLayerConfig(options.shape))[options.sublayer].linears) {
    const call = gemmCallOf(linear, tokens);
    const hit = runtime.gemm(call);
    if (!hit.covered) throw new _Unsupported(hit.reason);
    recipes[call.name] = hit.recipe;
  }
  return {
    tokens,
    datapath,
    reduceStack: ops.reduceStack,
    recipes: Object.freeze(recipes),
    ops,
  };
}

/**
 * Checks a tensor's element count.
 *
 * @param name the tensor's name for the message
 * @param a the tensor
 * @param n the expected element count
 * @throws {TypeError} when it differs
 */
export function _expectLength(name: string, a: Uint16Array, n: number): void {
  if (!(a instanceof Uint16Array) || a.length !== n) {
    throw new TypeError(
      `Cannot run block: '${name}' must be a Uint16Array of ${n} BF16 values, got ${
        a instanceof Uint16Array ? a.length : typeof a
      }`,
    );
  }
}
