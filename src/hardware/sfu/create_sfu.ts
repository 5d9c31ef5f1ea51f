/**
 * `createSfu`: one interface over the two SFU modes (`tesla-table` hardware model, `ieee`).
 *
 * @module
 */
import { ieeeEx2 } from "./ieee_ex2.ts";
import { ieeeLg2 } from "./ieee_lg2.ts";
import type { IeeeSfuOptions } from "./ieee_options.ts";
import { ieeeRcp } from "./ieee_rcp.ts";
import { ieeeRsqrt } from "./ieee_rsqrt.ts";
import { mufuEx2 } from "./mufu_ex2.ts";
import { mufuLg2 } from "./mufu_lg2.ts";
import { mufuRcp } from "./mufu_rcp.ts";
import { mufuRsqrt } from "./mufu_rsqrt.ts";
import { SFU_TABLE_ORDER, SFU_TABLE_ROWS, type SfuTables } from "./sfu_tables.ts";
import { SFU_IEEE_V1, SFU_TESLA_V1, type SfuModelDescriptor } from "./sfu_tesla_v1.ts";

/** The SFU modes. */
export type SfuMode = "tesla-table" | "ieee";

/** Options of {@link createSfu}. */
export type CreateSfuOptions =
  | { readonly mode: "tesla-table"; readonly tables: SfuTables }
  | ({ readonly mode: "ieee" } & IeeeSfuOptions);

/** A scalar FP32 function on bit patterns. */
export type SfuFn = (x: number) => number;

/** Names of the SFU functions an {@link Sfu} provides. */
export type SfuFnName = "rcp" | "rsqrt" | "ex2" | "lg2";

/** The SFU interface: scalar and batch functions on FP32 bit patterns, plus the model status. */
export interface Sfu {
  /** The mode this instance emulates. */
  readonly mode: SfuMode;
  /** Validation status of each function, for verdicts. */
  readonly status: SfuModelDescriptor;
  /** Reciprocal. */
  readonly rcp: SfuFn;
  /** Reciprocal square root. */
  readonly rsqrt: SfuFn;
  /** Base-2 exponential. */
  readonly ex2: SfuFn;
  /** Base-2 logarithm (`lg2.approx.ftz.f32`; validation status `model-only` in the table mode). */
  readonly lg2: SfuFn;
  /** Applies one of the functions to every element; returns a new array. */
  readonly map: (fn: SfuFnName, xs: Uint32Array) => Uint32Array;
}

/**
 * Builds an SFU for a mode. `tesla-table` needs the decoded ROM tables (see
 * `decodeSfuTables`); `ieee` takes an optional `ftz`.
 *
 * @param options the mode and its inputs
 * @returns a frozen {@link Sfu}
 * @throws {RangeError} on an unknown mode
 * @throws {TypeError} when `tesla-table` tables are missing or have the wrong lengths
 * @example
 * ```ts
 * import { createSfu } from "./create_sfu.ts";
 * const sfu = createSfu({ mode: "ieee" });
 * if (sfu.rcp(0x40000000) !== 0x3f000000) throw new Error(); // 1/2
 * if (sfu.map("ex2", new Uint32Array([0x40400000]))[0] !== 0x41000000) throw new Error(); // 2^3
 * if (sfu.status.functions.ex2.status !== "ieee-exact") throw new Error();
 * if (sfu.lg2(0x41000000) !== 0x40400000) throw new Error(); // log2(8) = 3
 * ```
 */
export function createSfu(options: CreateSfuOptions): Sfu {
  let fns: Record<SfuFnName, SfuFn>;
  let status: SfuModelDescriptor;
  if (options?.mode === "tesla-table") {
    const t = options.tables;
    _checkTables(t);
    fns = {
      rcp: (x) => mufuRcp(x, t),
      rsqrt: (x) => mufuRsqrt(x, t),
      ex2: (x) => mufuEx2(x, t),
      lg2: (x) => mufuLg2(x, t),
    };
    status = SFU_TESLA_V1;
  } else if (options?.mode === "ieee") {
    const o: IeeeSfuOptions = { ftz: options.ftz === true };
    fns = {
      rcp: (x) => ieeeRcp(x, o),
      rsqrt: (x) => ieeeRsqrt(x, o),
      ex2: (x) => ieeeEx2(x, o),
      lg2: (x) => ieeeLg2(x, o),
    };
    status = SFU_IEEE_V1;
  } else {
    throw new RangeError(
      `Cannot create SFU: mode '${String((options as { mode?: unknown })?.mode)}' is not ` +
        `'tesla-table' or 'ieee'`,
    );
  }
  const map = (fn: SfuFnName, xs: Uint32Array): Uint32Array => {
    const f = Object.hasOwn(fns, fn) ? fns[fn] : undefined;
    if (typeof f !== "function") throw new RangeError(`Cannot map SFU: unknown function '${fn}'`);
    const out = new Uint32Array(xs.length);
    for (let i = 0; i < xs.length; i++) out[i] = f(xs[i] as number);
    return out;
  };
  const sfu: Sfu = Object.freeze({ mode: options.mode, status, ...fns, map });
  _created.set(sfu, options);
  return sfu;
}

/** Every SFU this module created, with its options (frozen objects: the functions are fixed). */
const _created = new WeakMap<object, CreateSfuOptions>();

/**
 * The options an SFU was created with, so that another thread can create the same SFU; only for
 * an object `createSfu` returned itself (a copy or an object with replaced functions gets
 * `undefined`, so a worker never silently computes with different functions than the caller).
 *
 * @param sfu any MUFU model
 * @returns the options, or `undefined` when `sfu` is not an unmodified `createSfu` result
 * @example
 * ```ts
 * import { createSfu, sfuOptionsOf } from "./create_sfu.ts";
 * const sfu = createSfu({ mode: "ieee" });
 * if (sfuOptionsOf(sfu)?.mode !== "ieee") throw new Error();
 * if (sfuOptionsOf({ ...sfu }) !== undefined) throw new Error(); // a copy is not trusted
 * ```
 */
export function sfuOptionsOf(sfu: object): CreateSfuOptions | undefined {
  return _created.get(sfu);
}

function _checkTables(t: SfuTables | undefined): void {
  for (const name of SFU_TABLE_ORDER) {
    const a = t?.[name];
    if (!(a instanceof Int32Array) || a.length !== SFU_TABLE_ROWS[name] * 3) {
      throw new TypeError(
        `Cannot create SFU: 'tables.${name}' must be an Int32Array of ${
          SFU_TABLE_ROWS[name] * 3
        } values (use decodeSfuTables)`,
      );
    }
  }
}
