/**
 * Abbreviated vLLM options: vLLM 0.11's `FlexibleArgumentParser` keeps argparse's `allow_abbrev`,
 * so an option word that is a unique prefix of an option sets that option (`--max-num-seq 8` sets
 * `max_num_seqs`). A reader that looks for a setting's whole name would take such a stack for one
 * that leaves the setting at its default.
 *
 * @module
 */
import { quoteShort } from "../escape_text.ts";
import type { StackProfile } from "./stack_profile.ts";

/** The flags' option words (`--max_num_seqs=8` gives `max-num-seqs`), as argparse splits them. */
const _OPTION = /(?:^|\s)--([A-Za-z0-9][-_A-Za-z0-9.]*)(?==|\s|$)/g;

/**
 * The first option word of the stack's `flags` that is a strict prefix of one of `names`: argparse
 * (`allow_abbrev`, which vLLM 0.11's `FlexibleArgumentParser` keeps) reads a unique prefix of an
 * option as the option, so `--max-num-seq 8` sets `max_num_seqs`. A prefix shared by several
 * options makes argparse refuse the command line; either way the setting is not what its whole
 * name's absence says.
 *
 * @param stack the stack profile (its `flags` component)
 * @param names the settings' dashed names (`max-num-seqs`)
 * @returns the abbreviation as written (quoted and clipped) and the name it abbreviates, or
 *   null when no option word abbreviates one
 * @example
 * ```ts
 * import { vllmOptionAbbreviation } from "./vllm_option_abbreviation.ts";
 * const stack = { components: { vllm: "0.11.0", flags: "--max_num_seq=8" } };
 * if (vllmOptionAbbreviation(stack, ["max-num-seqs"])?.name !== "max-num-seqs") throw new Error();
 * const whole = { components: { vllm: "0.11.0", flags: "--max-num-seqs 8" } };
 * if (vllmOptionAbbreviation(whole, ["max-num-seqs"]) !== null) throw new Error();
 * ```
 */
export function vllmOptionAbbreviation(
  stack: Pick<StackProfile, "components">,
  names: readonly string[],
): { readonly shown: string; readonly name: string } | null {
  const flags = Object.hasOwn(stack.components, "flags") ? stack.components.flags! : "";
  for (const m of flags.matchAll(_OPTION)) {
    const word = m[1]!.replaceAll("_", "-");
    const name = names.find((n) => n !== word && n.startsWith(word));
    if (name !== undefined) return { shown: quoteShort(`--${m[1]!}`, 40), name };
  }
  return null;
}
