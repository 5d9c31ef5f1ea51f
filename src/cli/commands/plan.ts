/**
 * `bitaudit plan`: sample sizes for a wanted detection probability, and the reverse.
 *
 * @module
 */
import { Command } from "@commander-js/extra-typings";
import { UsageError } from "../../errors.ts";
import {
  falseCount as countFalse,
  lowerBinomial,
  lowerHypergeometric,
  MAX_RATE_TEXT,
  rateIsOne,
  requiredSampleBinomial,
  requiredSampleHypergeometric,
  sixDecimalsDown,
} from "../../verify/mod.ts";
import { printJson } from "../output.ts";
import { parseIntOption } from "../parse_int_option.ts";
import { addCommandHelp } from "../command_help.ts";

/**
 * Builds the `plan` command.
 *
 * @returns the commander command
 * @example
 * ```ts
 * import { planCommand } from "./plan.ts";
 * if (planCommand().name() !== "plan") throw new Error();
 * ```
 */
export function planCommand(): Command {
  return addCommandHelp(new Command("plan"))
    .description(
      "sample size k to catch a misreporting rate with a given confidence (seed paper eq. 1), or the detection probability of a given k",
    )
    .requiredOption("--population <N>", "records in the log")
    .requiredOption("--p-false <p>", "fraction of false records to detect, e.g. 0.001")
    .option("--confidence <c>", "wanted detection probability, e.g. 0.95")
    .option("--k <k>", "sample size: report its detection probability instead")
    .option("--json", "machine-readable output")
    .action((opts) => {
      const n = parseIntOption(opts.population, { flag: "--population", min: 1 });
      // Below 1e-15 the sample size that reaches a confidence passes 2^53 (and 1e-15 of the
      // largest population, 2^53 - 1, is a handful of records).
      const p = _num(opts.pFalse, "--p-false", { min: 1e-15, max: 1 });
      const falseCount = _falseCount(opts.pFalse, n, p);
      if ((opts.k === undefined) === (opts.confidence === undefined)) {
        throw new UsageError("USAGE_PLAN", "Cannot plan: give exactly one of --confidence or --k");
      }
      if (opts.k !== undefined) {
        const k = parseIntOption(opts.k, { flag: "--k", min: 0, max: n });
        // Never above the true value: lowered by the computation's error bound, rounded down.
        const binomial = sixDecimalsDown(lowerBinomial(p, k));
        const hypergeometric = sixDecimalsDown(lowerHypergeometric(n, { falseCount, k }));
        const r = {
          population: n,
          pFalse: p,
          falseCount,
          k,
          detectionBinomial: Number(binomial),
          detectionHypergeometric: Number(hypergeometric),
        };
        if (opts.json) return printJson(r);
        console.log(
          `k = ${k} of N = ${n} catches >= 1 false record (p = ${p}, F = ${falseCount}) with probability`,
        );
        console.log(`  ${binomial}  binomial 1 - (1 - p)^k`);
        console.log(`  ${hypergeometric}  hypergeometric 1 - C(N-F, k)/C(N, k)`);
        return;
      }
      const c = _num(opts.confidence!, "--confidence", { min: 0, max: 0.999999999999 });
      // Past 2^53 draws the binomial bound has no integer; capped at N below, it is N.
      let kb: number;
      try {
        kb = requiredSampleBinomial(p, c);
      } catch (e) {
        if (!(e instanceof RangeError)) throw e;
        kb = Number.POSITIVE_INFINITY;
      }
      const kh = requiredSampleHypergeometric(n, { falseCount, confidence: c });
      const r = {
        population: n,
        pFalse: p,
        falseCount,
        confidence: c,
        kBinomial: Math.min(kb, n),
        kHypergeometric: kh,
      };
      if (opts.json) return printJson(r);
      console.log(
        `to catch p = ${p} false records (F = ${falseCount} of N = ${n}) with probability >= ${c}:`,
      );
      console.log(
        `  k = ${r.kBinomial}  binomial bound ceil(ln(1 - c) / ln(1 - p))${
          kb > n ? " (capped at N)" : ""
        }`,
      );
      console.log(`  k = ${kh}  finite-population (hypergeometric) bound`);
    });
}

/**
 * F = ⌈p·N⌉ from the option's exact decimal text (at least 1: p ≥ 1e-15 is above 0). A text
 * below 1 that doubles read as 1 is refused: the binomial figure would be stated as certain.
 */
function _falseCount(text: string, n: number, p: number): number {
  let f: number;
  try {
    f = countFalse(text, n);
  } catch (e) {
    if (!(e instanceof RangeError)) throw e;
    throw new UsageError(
      "USAGE_NUMBER",
      `Cannot use --p-false '${text}': expected a decimal number of at most ${MAX_RATE_TEXT} characters, >= 1e-15 and <= 1`,
    );
  }
  if (p === 1 && !rateIsOne(text)) {
    throw new UsageError(
      "USAGE_NUMBER",
      `Cannot use --p-false '${text}': below 1 but read as 1 in double precision; give 1 or at most 0.9999999999999999`,
    );
  }
  return f;
}

function _num(
  text: string,
  flag: string,
  o: { integer?: boolean; min: number; max?: number },
): number {
  const v = Number(text);
  if (
    !/^[0-9.eE+-]+$/.test(text) || !Number.isFinite(v) || (o.integer && !Number.isSafeInteger(v)) ||
    v < o.min || (o.max !== undefined && v > o.max)
  ) {
    throw new UsageError(
      "USAGE_NUMBER",
      `Cannot use ${flag} '${text}': expected ${o.integer ? "an integer" : "a number"} >= ${o.min}${
        o.max !== undefined ? ` and <= ${o.max}` : ""
      }`,
    );
  }
  return v;
}
