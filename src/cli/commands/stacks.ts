/**
 * `bitaudit stacks list|show`: the software-stack profiles of the asset store (what a record's
 * `software.stack` names), with what each covers.
 *
 * @module
 */
import { Command } from "@commander-js/extra-typings";
import { openAssetStore } from "../../assets/mod.ts";
import { attentionBackend, type StackProfile } from "../../kernels/mod.ts";
import { listAssetIds, loadAsset, STACK_PROFILES } from "../../resolve/mod.ts";
import { addCommandHelp } from "../command_help.ts";
import { printJson, printText, table } from "../output.ts";
import { sfuMinimumParts } from "../sfu_minimum_parts.ts";

/**
 * Builds the `stacks` command group.
 *
 * @returns the commander command
 * @example
 * ```ts
 * import { stacksCommand } from "./stacks.ts";
 * if (stacksCommand().name() !== "stacks") throw new Error();
 * ```
 */
export function stacksCommand(): Command {
  const cmd = new Command("stacks").description("list and show software stack profiles");
  cmd.command("list")
    .description("list every stack profile with a one-line description and its sha256")
    .option("--json", "machine-readable output")
    .action(async (opts) => {
      const store = await openAssetStore();
      const rows = [];
      for (const id of listAssetIds(store, STACK_PROFILES)) {
        const { value, sha256 } = await loadAsset(store, { kind: STACK_PROFILES, id });
        rows.push({ id, kernels: value.gemm.kernelSource, name: value.name, sha256 });
      }
      if (opts.json) return printJson(rows);
      for (
        const line of table([
          ["id", "kernels", "sha256", "description"],
          ...rows.map((r) => [r.id, r.kernels, r.sha256, r.name]),
        ]).split("\n")
      ) printText(line);
    });
  cmd.command("show")
    .description("show one stack profile (validated): components, kernels, operators, coverage")
    .argument("<id>", "stack id, e.g. hf-qwen3-flash-attn-torch2.8")
    .option("--json", "machine-readable output")
    .action(async (id, opts) => {
      const { value, sha256, path } = await loadAsset(await openAssetStore(), {
        kind: STACK_PROFILES,
        id,
      });
      if (opts.json) {
        return printJson({
          path,
          sha256,
          ...value,
          covers: stackCoverage(value),
          sfuMinimumMetOn: sfuMinimumParts(value),
        });
      }
      for (const line of _lines(value, sha256)) printText(line);
    });
  return addCommandHelp(cmd) as unknown as Command;
}

/** Where an attention core runs: prefill passes, served sequences, layer blocks. */
type _Driver = Parameters<typeof attentionBackend>[1];

/** What {@link stackCoverage} reports: GEMMs always, each attention driver when modelled. */
export interface StackCoverage {
  /** GEMM records (every stack). */
  readonly gemm: true;
  /** `model_forward` records: true, or why not. */
  readonly prefill: true | string;
  /** `sequence` records: true, or why not. */
  readonly serving: true | string;
  /** `attention_block` records: true, or why not. */
  readonly block: true | string;
}

/**
 * What a stack lets the verifier recompute: GEMMs always; with operators, each attention driver
 * (prefill forward passes, served sequences, layer blocks) when its backend is modelled there.
 *
 * @param stack a validated stack profile
 * @returns `gemm: true`, and per driver `true` or the reason it is not covered
 * @example
 * ```ts
 * import { stackCoverage } from "./stacks.ts";
 * const c = stackCoverage({ gemm: { kernelSource: "recipe" } } as never);
 * if (c.gemm !== true || c.prefill === true) throw new Error();
 * ```
 */
export function stackCoverage(
  stack: Pick<StackProfile, "gemm" | "operators">,
): StackCoverage {
  const ops = stack.operators;
  const driver = (d: _Driver): true | string => {
    if (ops === undefined) return "no operators: GEMM records only";
    const b = attentionBackend(ops.attention, d);
    return b.modelled ? true : b.reason;
  };
  return {
    gemm: true,
    prefill: driver("prefill"),
    serving: driver("serving"),
    block: driver("block"),
  };
}

function _lines(s: StackProfile, sha256: string): string[] {
  const ops = s.operators;
  const covers = stackCoverage(s);
  const yes = (v: true | string) => v === true ? "yes" : `no (${v})`;
  return [
    `${s.id}, sha256 ${sha256}`,
    s.name,
    `components: ${Object.entries(s.components).map(([k, v]) => `${k} ${v}`).join(", ")}`,
    `GEMM kernels: ${
      s.gemm.kernelSource === "catalog"
        ? "looked up in a dispatch catalog (claims name one: bitaudit catalogs list)"
        : "an explicit recipe per record"
    }`,
    `SFU: ${s.sfu === undefined ? "none" : `${s.sfu.mode}, at least ${s.sfu.minimumStatus}`}`,
    ...(s.sfu === undefined ? [] : [`SFU minimum met: ${_sfuParts(s)}`]),
    ...(ops === undefined ? ["operators: none (GEMM records only)"] : [
      `operators: torch ${ops.torch}, attention ${ops.attention}, batching ${
        ops.batching ?? "pad-to-longest"
      }, MoE experts ${ops.experts ?? "not verifiable"}`,
    ]),
    `attention modelled for: model_forward ${yes(covers.prefill)}; sequence ${
      yes(covers.serving)
    }; attention_block ${yes(covers.block)}`,
    "sources:",
    ...s.sources.map((x) => `  - ${x}`),
  ];
}

/** Each SFU function with the parts where it meets the stack's minimum, as text. */
function _sfuParts(s: StackProfile): string {
  return Object.entries(sfuMinimumParts(s) ?? {}).map(([fn, parts]) =>
    `${fn} ${
      parts === "any"
        ? "on every part"
        : parts.length === 0
        ? "nowhere"
        : `on sm ${parts.join(", ")}`
    }`
  ).join("; ");
}
