/**
 * What every command's `--help` teaches: one example per command and the exit codes it can end
 * with, keyed by the command's path (`"audit work"`; `""` is `bitaudit` itself). Each command file
 * hands its command to {@link addCommandHelp} once; a command without an entry here is a bug
 * that every run of the CLI reports at once (exit 70), so none can ship without its help.
 *
 * @module
 */
import type { CommandUnknownOpts } from "@commander-js/extra-typings";
import { type CommandHelp, helpBlock } from "./help_block.ts";

const OK_USAGE = ["OK", "USAGE"] as const;
/** A command that reads this install's assets (a tampered or missing one ends it: `ASSET`). */
const OK_USAGE_ASSET = ["OK", "USAGE", "ASSET"] as const;
const VERDICT = {
  exits: ["OK", "FAIL", "USAGE", "INCONCLUSIVE", "ASSET"],
  meanings: {
    OK: "PASSED: every sampled record was recomputed bit for bit",
    FAIL: "FAILED: a sampled record's recomputation differs (report.md names it)",
    INCONCLUSIVE: "INCONCLUSIVE: no record failed, but some were NOT_VERIFIED",
  },
} as const;
const FORWARD = "--checkpoint tables/models/qwen3-tiny-dense --tokens tokens.json \\\n" +
  "--profile a100 --stack hf-qwen3-flash-attn-torch2.8 --kernel demo-qwen3-tiny-a100";

/** Every command's help, by path. */
export const COMMAND_HELP: Readonly<Record<string, CommandHelp>> = {
  "": {
    examples: ["bitaudit demo --out demo-out", "bitaudit claims append --help"],
    exits: ["OK", "FAIL", "USAGE", "INCONCLUSIVE", "ASSET", "OTHER_ASSETS"],
    meanings: { OK: "success (a verification: PASSED)" },
  },
  "announce": {
    examples: [
      "bitaudit announce --checkpoint checkpoint.txt --prover-pub prover.pub \\\n" +
      "--chain drand-chain.json --round 5123456 --k 100 --key inspector.key \\\n" +
      "--out announcement.dsse.json",
    ],
    exits: OK_USAGE,
  },
  "audit": {
    examples: [
      "bitaudit audit --log log/claims.jsonl --beacon drand-round.json \\\n" +
      "--chain drand-chain.json --checkpoint checkpoint.txt --prover-pub prover.pub \\\n" +
      "--k 100 --key inspector.key --out audit-out",
    ],
    ...VERDICT,
  },
  "audit plan": {
    examples: [
      "bitaudit audit plan --log log/claims.jsonl --beacon drand-round.json \\\n" +
      "--chain drand-chain.json --checkpoint checkpoint.txt --prover-pub prover.pub \\\n" +
      "--key inspector.key --k 1000 --out plan.json",
    ],
    exits: OK_USAGE,
  },
  "audit work": {
    examples: [
      "bitaudit audit work --plan plan.json --shard 0/4 --key worker.key --out results-0.jsonl",
    ],
    exits: OK_USAGE_ASSET,
  },
  "audit merge": {
    examples: [
      "bitaudit audit merge --plan plan.json --key inspector.key --worker-pub worker.pub \\\n" +
      "--out audit-out results-0.jsonl results-1.jsonl",
    ],
    ...VERDICT,
  },
  "audit serve": {
    examples: [
      "bitaudit audit serve --plan plan.json --nats nats://localhost:4222 \\\n" +
      "--key inspector.key --worker-pub worker.pub --out audit-out",
    ],
    ...VERDICT,
  },
  "audit estimate": {
    examples: ["bitaudit audit estimate --plan plan.json results-pilot.jsonl"],
    exits: OK_USAGE,
  },
  "worker": {
    examples: [
      "bitaudit worker --nats nats://localhost:4222 --log log/claims.jsonl --key worker.key",
    ],
    exits: OK_USAGE_ASSET,
  },
  "check": {
    examples: [
      "bitaudit check audit-out/attestation.dsse.json --trust-root trust-root.json",
      "bitaudit check audit-out/attestation.dsse.json --trust-root trust-root.json \\\n" +
      "--log log/claims.jsonl --recompute --require-verdict PASSED",
    ],
    exits: ["OK", "FAIL", "USAGE", "ASSET", "OTHER_ASSETS"],
    meanings: {
      OK: "the attestation is valid (and meets every --require-* policy)",
      FAIL: "the attestation is not valid, or a --require-* policy is not met",
      OTHER_ASSETS: "the attestation is not valid: its verdict names this release but assets " +
        "other than this release's manifest lists (each is named)",
    },
  },
  "page": { examples: ["bitaudit page --out checker-page"], exits: OK_USAGE_ASSET },
  "bundle": {
    examples: [
      "bitaudit bundle audit-out/attestation.dsse.json --out attestation.sigstore.json",
    ],
    exits: OK_USAGE,
  },
  "claims": {
    examples: ["bitaudit claims root --log log/claims.jsonl", "bitaudit claims append --help"],
    exits: ["OK", "FAIL", "USAGE", "ASSET"],
    meanings: { FAIL: "claims validate: a record is invalid; claims consistency: not extended" },
  },
  "claims make": {
    examples: ["bitaudit claims make --scenario demo/scenario.json --out prover-out"],
    exits: OK_USAGE_ASSET,
  },
  "claims root": { examples: ["bitaudit claims root --log log/claims.jsonl"], exits: OK_USAGE },
  "claims append": {
    examples: [
      "bitaudit model forward " + FORWARD + " \\\n--out hidden.safetensors --json > forward.json",
      "bitaudit claims append model_forward --log log/claims.jsonl --log-id my-service-2026 \\\n" +
      FORWARD + " \\\n" +
      "--fingerprint $(jq -r .fingerprint forward.json) --layer-chain forward.json",
      "bitaudit claims append sequence --log log/claims.jsonl \\\n" +
      "--checkpoint tables/models/qwen3-tiny-dense --history history.json --tokens sequence.json \\\n" +
      "--profile a100 --stack hf-qwen3-continuous-batching-torch2.8 --kernel demo-qwen3-tiny-a100 \\\n" +
      "--fingerprint <hex> --layer-chain chain.json",
    ],
    exits: OK_USAGE_ASSET,
    meanings: {
      OK: "the record was appended (its digest and the new log root are printed)",
      USAGE: "refused: a bad flag, an unusable input or facts that contradict each other (the " +
        "error line names its code); the log and blobs/ are left as they were",
    },
  },
  "claims checkpoint": {
    examples: [
      "bitaudit claims checkpoint --log log/claims.jsonl --key prover.key \\\n" +
      "--origin example.com/prover-1/log --out checkpoint.txt",
    ],
    exits: OK_USAGE,
  },
  "claims consistency": {
    examples: [
      "bitaudit claims consistency --old checkpoint-1.txt --new checkpoint-2.txt \\\n" +
      "--log log/claims.jsonl --pub prover.pub",
    ],
    exits: ["OK", "FAIL", "USAGE"],
    meanings: { FAIL: "the newer log does not extend the older one" },
  },
  "claims validate": {
    examples: ["bitaudit claims validate --log log/claims.jsonl"],
    exits: ["OK", "FAIL", "USAGE"],
    meanings: { FAIL: "a record fails the schema or the strict parser (each is listed)" },
  },
  "key": { examples: ["bitaudit key generate --out inspector"], exits: OK_USAGE },
  "key generate": { examples: ["bitaudit key generate --out inspector"], exits: OK_USAGE },
  "key trust-root": {
    examples: [
      "bitaudit key trust-root --pub inspector.pub --prover prover.pub --out trust-root.json",
    ],
    exits: OK_USAGE,
  },
  "plan": {
    examples: [
      "bitaudit plan --population 100000 --p-false 0.01 --confidence 0.95",
      "bitaudit plan --population 1000 --p-false 0.01 --k 100",
    ],
    exits: OK_USAGE,
  },
  "gemm": {
    examples: [
      "bitaudit gemm --profile h100-sxm --recipe cublas-single-walk --in ab.safetensors \\\n" +
      "--out c.safetensors",
    ],
    exits: OK_USAGE_ASSET,
  },
  "model": {
    examples: ["bitaudit model forward " + FORWARD + " \\\n--out hidden.safetensors"],
    exits: ["OK", "USAGE", "INCONCLUSIVE", "ASSET"],
  },
  "model synth": {
    examples: ["bitaudit model synth --config config.json --seed 1 --out my-checkpoint"],
    exits: OK_USAGE,
  },
  "model forward": {
    examples: ["bitaudit model forward " + FORWARD + " \\\n--out hidden.safetensors --json"],
    exits: ["OK", "USAGE", "INCONCLUSIVE", "ASSET"],
    meanings: { INCONCLUSIVE: "NOT_VERIFIED: the pass cannot be emulated (the reason is printed)" },
  },
  "model classes": {
    examples: [
      "bitaudit model classes --stack hf-qwen3-flash-attn-torch2.8 --profile a100 \\\n" +
      "--catalog demo-qwen3-tiny-a100 --config tables/models/qwen3-tiny-dense/config.json \\\n" +
      "--context 128",
    ],
    exits: ["OK", "USAGE", "INCONCLUSIVE", "ASSET"],
    meanings: { INCONCLUSIVE: "the classes are incomplete (a GEMM the kernels do not cover)" },
  },
  "profiles": { examples: ["bitaudit profiles list"], exits: OK_USAGE_ASSET },
  "profiles list": { examples: ["bitaudit profiles list --json"], exits: OK_USAGE_ASSET },
  "profiles show": { examples: ["bitaudit profiles show h100-sxm"], exits: OK_USAGE_ASSET },
  "stacks": { examples: ["bitaudit stacks list"], exits: OK_USAGE_ASSET },
  "stacks list": { examples: ["bitaudit stacks list --json"], exits: OK_USAGE_ASSET },
  "stacks show": {
    examples: ["bitaudit stacks show hf-qwen3-flash-attn-torch2.8"],
    exits: OK_USAGE_ASSET,
  },
  "catalogs": { examples: ["bitaudit catalogs list"], exits: OK_USAGE_ASSET },
  "catalogs list": { examples: ["bitaudit catalogs list --json"], exits: OK_USAGE_ASSET },
  "catalogs show": {
    examples: ["bitaudit catalogs show demo-qwen3-tiny-a100"],
    exits: OK_USAGE_ASSET,
  },
  "vectors": {
    examples: ["bitaudit vectors bundled"],
    exits: ["OK", "FAIL", "USAGE", "ASSET"],
    meanings: { FAIL: "a case's emulated result differs from the measured bits" },
  },
  "vectors check": {
    examples: [
      "bitaudit vectors check tests/vectors/khattak-mikaitis/A100/bf16 --profile a100 \\\n" +
      "--format bf16",
    ],
    exits: ["OK", "FAIL", "USAGE", "ASSET"],
    meanings: { FAIL: "a case's emulated result differs from the measured bits" },
  },
  "vectors bundled": {
    examples: ["bitaudit vectors bundled --json"],
    exits: ["OK", "FAIL", "USAGE", "ASSET"],
    meanings: { FAIL: "a case's emulated result differs from the measured bits" },
  },
  "demo": {
    examples: ["bitaudit demo --out demo-out"],
    exits: ["OK", "FAIL", "USAGE", "ASSET"],
    meanings: {
      OK: "the demo ran as designed: no honest record failed, every tensor-core vector " +
        "matched, the timestamped attestation checks (the falsifications the sample caught " +
        "are printed)",
      FAIL: "the demo did not end as designed (an honest record failed, a vector differed, " +
        "a check failed)",
    },
  },
};

/**
 * Adds the example and exit-code block of {@link COMMAND_HELP} to a command's `--help` and to
 * every subcommand's.
 *
 * @param cmd a command (its path is its name and its parents' names, `bitaudit` excluded)
 * @returns the same command
 * @throws {Error} when a command has no entry (a bug: every command must teach its use)
 * @example
 * ```ts
 * import { Command } from "@commander-js/extra-typings";
 * import { addCommandHelp } from "./command_help.ts";
 * let text = "";
 * const cmd = addCommandHelp(new Command("plan")).configureOutput({ writeOut: (s) => text += s });
 * cmd.outputHelp();
 * if (!text.includes("Exit codes:")) throw new Error(text);
 * ```
 */
export function addCommandHelp<C extends CommandUnknownOpts>(cmd: C): C {
  const path = commandPath(cmd);
  const help = Object.hasOwn(COMMAND_HELP, path) ? COMMAND_HELP[path] : undefined;
  if (help === undefined) throw new Error(`Cannot build help: no entry for '${path}'`);
  cmd.addHelpText("after", helpBlock(help));
  for (const sub of cmd.commands) addCommandHelp(sub);
  return cmd;
}

/**
 * The path a command is listed under in {@link COMMAND_HELP}.
 *
 * @param cmd a command
 * @returns its name after its parents' names (`"audit work"`), `""` for `bitaudit` itself
 * @example
 * ```ts
 * import { Command } from "@commander-js/extra-typings";
 * import { commandPath } from "./command_help.ts";
 * const audit = new Command("audit");
 * if (commandPath(audit.command("work")) !== "audit work") throw new Error();
 * ```
 */
export function commandPath(cmd: CommandUnknownOpts): string {
  const names: string[] = [];
  for (let c: CommandUnknownOpts | null = cmd; c !== null; c = c.parent) names.unshift(c.name());
  if (names[0] === "bitaudit") names.shift();
  return names.join(" ");
}
