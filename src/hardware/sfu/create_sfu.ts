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

/**
 * Plain data that rebuilds an SFU with {@link createSfu}: the mode and, for `tesla-table`, the
 * decoded ROM tables (typed arrays: a description can be posted to a worker).
 */
export type SfuDescription =
  | { readonly mode: "tesla-table"; readonly tables: SfuTables }
  | { readonly mode: "ieee"; readonly ftz: boolean };

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
  const description: SfuDescription = options.mode === "tesla-table"
    ? Object.freeze({ mode: "tesla-table", tables: options.tables })
    : Object.freeze({ mode: "ieee", ftz: options.ftz === true });
  const sfu = { mode: options.mode, status, ...fns, map };
  // Not enumerable: a copy (`{ ...sfu }`) or an object built around replaced functions does not
  // carry it, so nothing rebuilds different functions than the object's own.
  Object.defineProperty(sfu, _DESCRIPTION, { value: description, enumerable: false });
  return Object.freeze(sfu);
}

/** Property under which `createSfu` records the plain data that rebuilds an SFU. */
const _DESCRIPTION = "description";

/**
 * The plain data that rebuilds an SFU (`createSfu(description)`), so that another thread can
 * build the same SFU from a posted message. `createSfu` records it on the frozen SFU as a
 * non-enumerable own property, so a copy or an object built around replaced functions gets
 * `undefined`, and a worker never silently computes with different functions than the caller.
 *
 * @param sfu any MUFU model
 * @returns the description, or `undefined` when `sfu` is not an unmodified `createSfu` result
 * @example
 * ```ts
 * import { createSfu, sfuDescription } from "./create_sfu.ts";
 * const sfu = createSfu({ mode: "ieee" });
 * const d = sfuDescription(sfu);
 * if (d?.mode !== "ieee" || d.ftz !== false) throw new Error();
 * if (createSfu(d).rcp(0x40000000) !== sfu.rcp(0x40000000)) throw new Error();
 * if (sfuDescription({ ...sfu }) !== undefined) throw new Error(); // a copy is not trusted
 * ```
 */
export function sfuDescription(sfu: object): SfuDescription | undefined {
  const d = Object.getOwnPropertyDescriptor(sfu, _DESCRIPTION);
  return d === undefined || d.enumerable === true ? undefined : d.value as SfuDescription;
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
