/**
 * `componentMismatch`: whether the library versions a record states agree with the versions its
 * stack profile pins. The stack profile is what the verifier recomputes with (its reduction trees,
 * FlashAttention build, RoPE reading, vLLM paths all follow its versions), so a record that names
 * a stack pinning PyTorch 2.8.0 and states PyTorch 2.4.0 describes a run the recomputation is not.
 *
 * A stack's value is read as: an exact release (`2.8.0`: the record's release must be the same,
 * missing parts read as 0, so `2.8` and `2.8.0+cu128` agree); a series (`4.5x`: a release whose
 * minor adds one digit to the prefix, 4.50 to 4.59, not 4.500; `5.x`: any 5.*; `4.57.x`: any
 * 4.57.*); a lower bound (`> 9.15.0`); anything else (`as recorded in the dispatch catalog`) pins
 * nothing. The stack's own value, copied into the record, agrees. A record's release is the first
 * run of dotted numbers anywhere in its value (`torch 2.4.0`, `==2.4.0`, `V2.4`): one the stack
 * excludes is a `contradiction` whatever is written beside it (`2.4.0 (cu118)`; a bound such as
 * `>=2.4.0` states no release, and a text that also writes a release the stack accepts, `CUDA
 * 12.8 build of 2.8.0`, states more than a release: both `unreadable`); one it accepts is compared only as the whole
 * value, with nothing before it but the component's own name and `==` (`nightly 2.8.0`,
 * `cpu 2.8.0`, `2.8.0 (allow_tf32=True)` are `unreadable`); one marked as a pre-release,
 * development, post-release or local build (`2.8.0a0+5228986c39.nv25.05`, `4.57.0.dev0`;
 * `+cu128` is a release) is another build than the release and `unreadable`.
 * Component names are compared on their letters and digits alone, without case or a `version`
 * suffix, `torch` as `pytorch`, `flashattention` as `flashattn` (`PyTorch `, `torch_version`,
 * `flash-attn` are `pytorch` and `flashattn`); a name with other than ASCII letters, digits,
 * spaces and `_-.` cannot be compared and is `unreadable`, as is a value with no number where the
 * stack pins one.
 *
 * A stack's run settings are pinned. Each plain `NAME=VALUE` of its `env` (`;`-separated; a
 * conditional one such as `on sm_90 X=2` only for records of that architecture, and for none when
 * the caller does not name one): a record component named `NAME`, and each `NAME=VALUE` written
 * anywhere in a record's own environment text (`env`, `environment`, ...; shell-style `A=1 B=2`,
 * `export A=1`, quoted values, newlines or commas between them, a backslash before a line break
 * joining the lines as a shell joins them), must give `VALUE` (`VLLM_ALLREDUCE_USE_SYMM_MEM=1`
 * under a stack run with 0 describes another run: a contradiction), and so must a `NAME=VALUE` in
 * any other component's text (`launch_env`); an environment that leaves a variable out does not
 * state it otherwise, and one that names a pinned variable in a way that cannot be read is
 * `unreadable`. Flags are written in too many equivalent ways to compare: a record's `flags`, or
 * command-line options (`--kv-cache-dtype fp8`) under any other name, other than the stack's words
 * are `unreadable`.
 *
 * A setting the stack does not pin is `unreadable` (NOT_VERIFIED where the bits match), never
 * passed over: a PASS must not vouch for a run set otherwise than the one recomputed
 * (`kv_cache_dtype: fp8`, `attn_implementation: sdpa`, `enforce_eager: False`). So a component
 * the stack does not pin, or pins by description (`cublas: as recorded in the dispatch catalog`),
 * is `unreadable` unless its value is a library's release (`cuda: 12.4`: recorded, not compared;
 * `uncomparedComponents` lists them for the result), and so is a variable set in an environment
 * text that the stack's `env` does not name, except the variables the comparison knows: those the
 * stack's `env` sets on any architecture, the NCCL settings compared with a recorded all-reduce
 * (`nccl_env.ts`), and those that only pick devices, processes, caches, logging or CPU threads
 * ({@link INERT_VARIABLES}; a device list naming a MIG instance picks a slice of a GPU, which is
 * not modelled, and is `unreadable`). A component whose value is an environment text
 * (`launch_env: A=1 B=2`) is read as one.
 *
 * @module
 */

import { quoteShort } from "../escape_text.ts";

/** How a record's components disagree with its stack's. */
export interface ComponentMismatch {
  /**
   * `contradiction`: a stated release the stack's value excludes; `unreadable`: a value with no
   * release numbers where the stack pins one, which cannot be compared.
   */
  readonly kind: "contradiction" | "unreadable";
  /** One line naming the component, the stated value and the stack's. */
  readonly reason: string;
  /**
   * What a prover can state instead, where one statement is readable (flags: the stack's words
   * exactly, or none); absent otherwise.
   */
  readonly advice?: string;
}

/**
 * Compares the components a record states with its stack profile's.
 *
 * @param stack the stack profile's `components`
 * @param claimed the record's `software.components`
 * @param gpu `architecture`: the record's GPU architecture (`sm_90`), which decides the stack's
 *   conditional settings (`on sm_90 X=2`); without it they pin nothing
 * @returns the first contradiction, else the first component that cannot be compared, or null
 *   when every shared component agrees
 * @example
 * ```ts
 * import { componentMismatch } from "./stack_components.ts";
 * const stack = { pytorch: "2.8.0", transformers: "4.5x", cublas: "as recorded in the catalog" };
 * if (componentMismatch(stack, { torch: "2.8.0+cu128", transformers: "4.57.1" }) !== null) {
 *   throw new Error();
 * }
 * if (componentMismatch(stack, { pytorch: "2.4.0" })?.kind !== "contradiction") throw new Error();
 * if (componentMismatch(stack, { cublas: "12.4.5" }) !== null) throw new Error(); // not compared
 * if (componentMismatch(stack, { kv_cache_dtype: "fp8" })?.kind !== "unreadable") throw new Error();
 * const vllm = { env: "VLLM_ATTENTION_BACKEND=FLASH_ATTN; on sm_90 VLLM_FLASH_ATTN_VERSION=2" };
 * const fa3 = { env: "VLLM_FLASH_ATTN_VERSION=3" };
 * if (componentMismatch(vllm, fa3, { architecture: "sm_90" })?.kind !== "contradiction") {
 *   throw new Error();
 * }
 * if (componentMismatch(vllm, fa3, { architecture: "sm_80" }) !== null) throw new Error();
 * ```
 */
export function componentMismatch(
  stack: Readonly<Record<string, string>>,
  claimed: Readonly<Record<string, string>>,
  gpu: { readonly architecture?: string } = {},
): ComponentMismatch | null {
  const pinned = new Map(Object.entries(stack).map(([k, v]) => [_name(k), v]));
  const settings = _settings(stack, gpu.architecture);
  const known = _knownVariables(stack);
  // Every component is looked at: an unreadable one stated first must not hide a contradiction.
  let unreadable: ComponentMismatch | null = null;
  // The release each pinned library is stated at, and under which name (two names may be one
  // library: `torch` and `PyTorch_version`).
  const releases = new Map<string, { key: string; value: string; release: number[] }[]>();
  for (const [key, text] of Object.entries(claimed)) {
    if (!/^[A-Za-z0-9 _.-]+$/.test(key)) {
      // A lookalike of a pinned name (another script's letters) must not pass as another component.
      unreadable ??= {
        kind: "unreadable",
        reason: `component name ${quoteShort(key, 60)} has characters other than ASCII letters, ` +
          "digits, spaces and _-. (it cannot be compared with the stack's pins)",
      };
      continue;
    }
    const name = _name(key);
    // A release in the form the library's own tools print (NCCL's tuple or code) is its release.
    const printed = _VARIABLE.test(key) ? null : printedRelease(name, text);
    const value = printed === null ? text : printed.join(".");
    const ck = `components.${_shortKey(key)}`;
    const said = `${ck} ${quoteShort(text, 60)}`;
    // The stated text, not its reading: a printed form's suffix (`(2, 27, 3, ...)`) is text too.
    if (_CONTROLS.test(text)) {
      // A terminal escape or a reordering mark is no version and could disguise one.
      unreadable ??= {
        kind: "unreadable",
        reason: `${said} holds control or bidirectional-formatting characters`,
        advice: `state ${ck} as plain text`,
      };
      continue;
    }
    const rule = pinned.get(name);
    // The stack's own words (`4.5x`, its env text, its flags, copied into the record) agree.
    if (rule !== undefined && rule.trim() === value.trim()) continue;
    // Any component's text may set a variable (`launch_env`, `cmdline`, not only `env`).
    const stated = _envFinding(ck, value, { settings, known });
    if (stated?.kind === "contradiction") return stated;
    unreadable ??= stated;
    if (_ENV_NAMES.has(name) || _statedAssignments(value).length > 0) {
      // An environment text: its settings are judged above; anything else in it (`X: 1`, JSON,
      // a command line) states what cannot be compared.
      if (_envLeftover(value) !== "") {
        unreadable ??= {
          kind: "unreadable",
          reason: `${said} holds more than NAME=VALUE settings, which cannot be compared`,
          advice: `state only NAME=VALUE settings in ${ck} (the stack id stands for the rest)`,
        };
      }
      continue;
    }
    const flags = settings.get("flags");
    if (
      flags !== undefined && name !== "flags" && /(?:^|[\s(,;="'])--?[A-Za-z]/.test(value) &&
      value.trim() !== flags.value
    ) {
      // Command-line options stated under another name cannot be compared either.
      unreadable ??= {
        kind: "unreadable",
        reason: `${ck} states command-line options other than the stack's ` +
          `${flags.what} (flags are not compared otherwise)`,
        advice: `leave the options out of ${ck} (the stack's flags are stated as ` +
          `the flags component alone: ${JSON.stringify(flags.value)})`,
      };
    }
    const setting = settings.get(_variable(key));
    if (setting !== undefined) {
      if (name === "flags") {
        if (value.trim() !== setting.value) {
          unreadable ??= {
            kind: "unreadable",
            reason: `${said} is not the stack's ${setting.what} (flags are not compared otherwise)`,
            advice: _flagsAdvice(setting.value),
          };
        }
      } else if (_unquote(value.trim()) !== setting.value) {
        return {
          kind: "contradiction",
          reason: `${said}, where the stack runs with ${setting.what}`,
        };
      }
      continue;
    }
    const accepts = rule === undefined ? undefined : _rule(rule);
    if (_VARIABLE.test(key) && accepts === undefined) {
      // A variable the stack does not pin (a `*_VERSION` of a library it pins by release is that
      // library): one the comparison knows, or a setting it cannot compare.
      if (!known(key, value)) {
        unreadable ??= _unpinnedVariable(key, _unquote(value.trim()), {
          said,
          unpinned: "sets a variable the stack does not pin",
          advice: `leave ${ck} out: the stack id stands for the run's settings ` +
            "(`bitaudit stacks show <id>`)",
        });
      }
      continue;
    }
    if (accepts === undefined || rule === undefined) {
      // Not pinned by release: the stack's flags under another name, or a known library's bare
      // release (recorded, not compared: `uncomparedComponents`); anything else is a setting or
      // a text that cannot be compared.
      if (rule === undefined && value.trim() === flags?.value) continue;
      // Recorded, not compared (two such names may be two things: nvidia-smi's driver CUDA and
      // the toolkit's, both folding to `cuda`).
      if (_uncompared(name, value, rule)) continue;
      const lone = _release(value);
      if (
        rule === undefined && _LIBRARIES.has(name) && lone !== null &&
        _isReleaseText(value, name) &&
        lone.release.length === 1 && lone.release[0]! >= 1000
      ) {
        // cuDNN's 91002 for 9.10.2: each library encodes its releases in its own way.
        unreadable ??= {
          kind: "unreadable",
          reason: `${said} is a number without dots (an integer encoding of a release), which ` +
            "cannot be read as a release",
          advice: `state ${ck} as its dotted release (cuDNN's 91002 is 9.10.2)`,
        };
        continue;
      }
      unreadable ??= {
        kind: "unreadable",
        reason: rule === undefined
          ? `${said} is not a release of a library this comparison knows (a setting the stack ` +
            "does not pin, or other text), so it cannot be compared with the run recomputed"
          : `${said} is neither the stack's ${quoteShort(rule, 60)} nor a bare release`,
        advice: rule === undefined
          ? `leave ${ck} out: the stack id stands for the run's settings ` +
            "(`bitaudit stacks show <id>`)"
          : `leave ${ck} out, or state the stack's words ${JSON.stringify(rule)}`,
      };
      continue;
    }
    const read = _release(value);
    if (read === null) {
      unreadable ??= {
        kind: "unreadable",
        reason: `${said} has no release number to compare with the stack's '${rule}'`,
      };
    } else if (_encoded(read.release, rule)) {
      // A library's integer encoding (cuDNN's 91002 for 9.10.2) differs by library and version.
      unreadable ??= {
        kind: "unreadable",
        reason: `${said} is a number without dots (an integer encoding of a release), which ` +
          `cannot be compared with the stack's '${rule}'`,
        advice: `state ${ck} as its dotted release (cuDNN's 91002 is 9.10.2)`,
      };
    } else if (
      !accepts(read.release) && !_BOUND.test(value.slice(0, read.start)) &&
      !_releases(value).some((r) => accepts(r.release))
    ) {
      // A release the stack excludes is a contradiction, whatever is written beside it
      // (`2.4.0 (cu118)`); a bound (`>=2.4.0`, `!=2.4.0`) states no release, and a text that
      // also writes a release the stack accepts (`CUDA 12.8 build of 2.8.0`: the first number
      // is another library's) states more than a release.
      return { kind: "contradiction", reason: `${said}, where the stack pins '${rule}'` };
    } else if (!_isReleaseText(value, name)) {
      // `2.8.0 (allow_tf32=True)`, `nightly 2.8.0`: a release with a statement beside it that is
      // not compared.
      unreadable ??= {
        kind: "unreadable",
        reason: `${said} states more than a release (a release, with the component's name ` +
          "before it, is what is compared)",
        advice: `state ${ck} as its release alone (e.g. '2.8.0+cu128')`,
      };
    } else {
      const release = read.release;
      const seen = releases.get(_name(key)) ?? [];
      // `2.8` and `2.8.0` may be one release; `2.8.0` and `2.4.0` are not (each stated release
      // against every other, whatever their order).
      const earlier = seen.find((e) =>
        e.release.some((n, i) => i < release.length && n !== release[i])
      );
      if (earlier !== undefined) {
        return {
          kind: "contradiction",
          reason: `components.${earlier.key} '${earlier.value}' and ${said} state two releases ` +
            `of one library (the stack pins '${rule}')`,
        };
      }
      releases.set(_name(key), [...seen, { key, value, release }]);
      // A snapshot before or after a release (a container's `2.8.0a0+5228986c39`) is not it.
      const build = _unreleased(value, read.end, _name(key));
      if (build !== null) {
        unreadable ??= {
          kind: "unreadable",
          reason: `${said} is a ${build}, not a release the stack's '${rule}' names`,
          advice: `run a release the stack names ('${rule}'), or choose the stack of this build ` +
            "if there is one (`bitaudit stacks`)",
        };
      }
    }
  }
  return unreadable;
}

/**
 * Whether a value is a release as a whole for the component named `name` (as `_name` folds it):
 * the release (`2.8.0`, `v2.8`, `12.8`, `2.27.3-1+cuda12.8`, `2.8.0+cu128`, a pre-release or local
 * build, which `_unreleased` names), with nothing after it (`2.8.0 (allow_tf32=True)` states more
 * than a release) and before it nothing but `=`/`==` and the component's own name, however spelled
 * (`torch 2.8.0`, `torch==2.8.0`, `PyTorch version 2.8.0` for `torch`; `FA2 2.8.3` for
 * `flash_attn`), beside the word of a CUDA build (`cu128 torch 2.8.0`). Any other word before the
 * release (`nightly 2.8.0`, `nv25.05 2.8.0`, `rocm6.3 2.8.0`, `cpu 2.8.0`, `not 2.8.0`,
 * `torch2.4.0 2.8.0`) says something of the build that is not compared: more than a release.
 */
function _isReleaseText(value: string, name: string): boolean {
  const v = value.trim();
  const read = _release(v);
  if (read === null || !/^[A-Za-z0-9.+_-]*$/.test(v.slice(read.end))) return false;
  // `_release` reads a `v` just before the numbers as their prefix (`torch v2.8.0`).
  const before = /^(.*?)\s*(?:==?\s*)?[vV]?$/s.exec(v.slice(0, read.start))![1]!;
  if (before === "") return true;
  const words = before.split(/\s+/);
  if (!words.every((w) => /^[A-Za-z][A-Za-z0-9_.-]*$/.test(w))) return false;
  const own = words.filter((w) => !/^cu\d{2,3}$/i.test(w));
  return own.length > 0 && _name(own.join(" ")) === name;
}

/** The end of a text before a number that makes it a bound, not a release (`>=`, `!=`, `<`). */
const _BOUND = /[<>!~^]\s*=?\s*[vV]?$/;

/**
 * Control characters other than tab and line breaks (an environment text may span lines), and
 * bidirectional formatting marks.
 */
const _CONTROLS =
  // deno-lint-ignore no-control-regex
  /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069\ufeff]/;

/** A component named like an environment variable (`NCCL_ALGO`, `TORCH_VERSION`). */
const _VARIABLE = /^[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+$/;

/**
 * Libraries (names as folded) whose release a record may state where its stack pins none: the
 * release is recorded and named as not compared (`uncomparedComponents`). A name outside this
 * list is a setting or a text the comparison cannot read.
 */
const _LIBRARIES = new Set([
  "pytorch",
  "transformers",
  "vllm",
  "flashattn",
  "vllmflashattn",
  "flashinfer",
  "xformers",
  "triton",
  "cuda",
  "pytorchcuda",
  "torchcuda",
  "cudatoolkit",
  "cudaruntime",
  "cudnn",
  "cublas",
  "cublaslt",
  "nccl",
  "cutlass",
  "nvcc",
  "driver",
  "nvidiadriver",
  "cudadriver",
  "python",
  "numpy",
  "safetensors",
  "tokenizers",
  "accelerate",
]);

/**
 * Whether a value is a bare release with a dotted number of the component named `name` (`12.4`,
 * `v2.8.0`, `torch 2.5.1+cu124` for `torch`): a release and nothing else, so no setting can ride
 * along.
 */
function _isRelease(value: string, name: string): boolean {
  const read = _release(value);
  return read !== null && read.release.length >= 2 && _isReleaseText(value, name);
}

/**
 * Whether a component is recorded but not compared: a bare release of a library the stack does
 * not pin (one this comparison knows), or pins by description only, other than the stack's words.
 */
function _uncompared(name: string, value: string, rule: string | undefined): boolean {
  if (!_isRelease(value, name)) return false;
  if (rule === undefined) return _LIBRARIES.has(name);
  return rule.trim() !== value.trim() && _rule(rule) === undefined;
}

/** A component name for a one-line message: white space collapsed, at most 60 characters. */
function _shortKey(key: string): string {
  const k = key.replace(/\s+/g, " ");
  return k.length > 60 ? `${k.slice(0, 57)}...` : k;
}

/**
 * What an environment text holds besides its `NAME=VALUE` settings, `export`, the stack's own
 * `on sm_NN` prefixes and separators: empty when nothing.
 */
function _envLeftover(text: string): string {
  return _joinedLines(text).replace(_ASSIGNMENT, " ").replace(
    /(?:^|\s)(?:export|on sm_[0-9]+[a-z]?)(?=\s|$)/g,
    " ",
  )
    .replace(/[\s;,&]+/g, "");
}

/**
 * The components a record states that the comparison passes over without comparing: releases of
 * libraries its stack does not pin, or pins by description (`cublas: as recorded in the dispatch
 * catalog`). A result names them, so that a PASS is not read as vouching for them.
 *
 * @param stack the stack profile's `components`
 * @param claimed the record's `software.components`
 * @returns `name 'value'` of each such component, in the record's order
 * @example
 * ```ts
 * import { uncomparedComponents } from "./stack_components.ts";
 * const stack = { pytorch: "2.8.0", cublas: "as recorded in the dispatch catalog" };
 * const got = uncomparedComponents(stack, { pytorch: "2.8.0", cublas: "12.4.5", cuda: "12.4" });
 * if (got.join() !== "cublas '12.4.5',cuda '12.4'") throw new Error();
 * ```
 */
export function uncomparedComponents(
  stack: Readonly<Record<string, string>>,
  claimed: Readonly<Record<string, string>>,
): string[] {
  const pinned = new Map(Object.entries(stack).map(([k, v]) => [_name(k), v]));
  return Object.entries(claimed)
    .filter(([key, value]) =>
      /^[A-Za-z0-9 _.-]+$/.test(key) && !_ENV_NAMES.has(_name(key)) && !_VARIABLE.test(key) &&
      _uncompared(_name(key), value, pinned.get(_name(key)))
    )
    .map(([key, value]) => `${_shortKey(key)} ${quoteShort(value, 60)}`);
}

/**
 * A release in a form a library's own tools print other than dotted text, else null: NCCL's
 * tuple from `torch.cuda.nccl.version()` (`(2, 27, 3)`, with or without a suffix) and its integer
 * `NCCL_VERSION_CODE` (`22703`: major * 10000 + minor * 100 + patch, NCCL 2.9 on).
 *
 * @param library the component's library name (`nccl`)
 * @param value the stated text
 * @returns [major, minor, patch], or null
 * @example
 * ```ts
 * import { printedRelease } from "./stack_components.ts";
 * if (printedRelease("nccl", "(2, 27, 3)")?.join(".") !== "2.27.3") throw new Error();
 * if (printedRelease("nccl", "22703")?.join(".") !== "2.27.3") throw new Error();
 * if (printedRelease("cudnn", "91002") !== null) throw new Error(); // its own encoding
 * ```
 */
export function printedRelease(library: string, value: string): number[] | null {
  if (library !== "nccl") return null;
  const tuple = /^\s*\(\s*(\d+)\s*,\s*(\d+)\s*,\s*(\d+)\s*(?:,[^()]*)?\)\s*$/.exec(value);
  if (tuple !== null) return [Number(tuple[1]), Number(tuple[2]), Number(tuple[3])];
  const code = /^\s*(\d{5,6})\s*$/.exec(value);
  if (code === null) return null;
  const n = Number(code[1]);
  return [Math.floor(n / 10000), Math.floor(n / 100) % 100, n % 100];
}

/**
 * The releases a record states for one library: each component whose name is the library's
 * ({@link componentName}) and whose value holds a release (the first dotted number, as the
 * comparison reads it: `2.27.3-1+cuda12.8` is 2.27.3). A value with no number is left out (the
 * comparison already names it as unreadable).
 *
 * @param claimed the record's `software.components`
 * @param library the library's name as compared (`nccl`)
 * @returns `component` (`name 'value'`, for a message) and `release` of each, in the record's order
 * @example
 * ```ts
 * import { statedReleases } from "./stack_components.ts";
 * const got = statedReleases({ NCCL_version: "2.18.3-1+cuda12.2", torch: "2.8.0" }, "nccl");
 * if (got.length !== 1 || got[0]!.release.join(".") !== "2.18.3") throw new Error();
 * ```
 */
export function statedReleases(
  claimed: Readonly<Record<string, string>>,
  library: string,
): { readonly component: string; readonly value: string; readonly release: readonly number[] }[] {
  const out: { component: string; value: string; release: number[] }[] = [];
  for (const [key, value] of Object.entries(claimed)) {
    if (!/^[A-Za-z0-9 _.-]+$/.test(key) || _VARIABLE.test(key) || _name(key) !== library) continue;
    const release = printedRelease(library, value) ?? _release(value)?.release;
    if (release !== undefined) {
      out.push({ component: `${_shortKey(key)} ${quoteShort(value, 60)}`, value, release });
    }
  }
  return out;
}

/** What to state instead of flags that cannot be compared (the value as a JSON string). */
function _flagsAdvice(flags: string): string {
  return `state the stack's flags exactly (the flags component's value: ${
    JSON.stringify(flags)
  }), or leave the component out (the record then holds the stack's)`;
}

/**
 * Every setting a record's components state: each `NAME=VALUE` in any component's text, however
 * written (see the module doc), and each component whose name is a variable's (`NCCL_ALGO`), with
 * its value unquoted.
 *
 * @param claimed the record's `software.components`
 * @returns the settings as stated, in order
 * @example
 * ```ts
 * import { statedSettings } from "./stack_components.ts";
 * const s = statedSettings({ env: "export NCCL_ALGO=Tree NCCL_PROTO='Simple'", NCCL_MAX_NCHANNELS: "1" });
 * if (s.length !== 3 || s[1]![1] !== "Simple") throw new Error();
 * ```
 */
export function statedSettings(
  claimed: Readonly<Record<string, string>>,
): [string, string][] {
  const out: [string, string][] = [];
  for (const [key, value] of Object.entries(claimed)) {
    if (/^[A-Z_][A-Z0-9_]*$/.test(key)) out.push([key, _unquote(value.trim())]);
    out.push(..._statedAssignments(value));
  }
  return out;
}

/**
 * What a component's text says of the stack's pinned variables: a contradiction (a `NAME=VALUE`
 * giving another value), an unreadable mention (a pinned name it names in a way that cannot be read
 * as `NAME=VALUE`), or null.
 */
function _envFinding(
  key: string,
  value: string,
  o: {
    readonly settings: ReadonlyMap<string, { readonly value: string; readonly what: string }>;
    readonly known: (variable: string, value: string) => boolean;
  },
): ComponentMismatch | null {
  const { settings } = o;
  const found = _statedAssignments(value);
  for (const [variable, set] of found) {
    const pin = settings.get(_variable(variable));
    if (pin !== undefined && set !== pin.value) {
      return {
        kind: "contradiction",
        reason: `${key} sets ${variable}=${
          quoteShort(set, 60)
        }, where the stack runs with ${pin.what}`,
      };
    }
  }
  // A variable the stack does not pin and the comparison does not know may change the run.
  const free = found.find(([v, set]) => !settings.has(_variable(v)) && !o.known(v, set));
  if (free !== undefined) {
    const said = `${key} sets ${_shortKey(free[0])}=${quoteShort(free[1], 60)}`;
    return _unpinnedVariable(free[0], free[1], {
      said: `${said}, which`,
      unpinned: "the stack does not pin",
      advice: `leave ${
        _shortKey(free[0])
      } out of ${key}, or run with the stack's environment alone`,
    });
  }
  // A pinned variable named in a way the reading above missed (a character inside the name, an
  // operator it does not know) cannot be compared.
  const read = new Set(found.map(([v]) => _variable(v)));
  const folded = _variable(value);
  for (const [pinned, pin] of settings) {
    if (pinned !== "flags" && !read.has(pinned) && folded.includes(pinned)) {
      return {
        kind: "unreadable",
        reason: `${key} names ${pin.what.split("=")[0]} in a way that cannot be read as NAME=VALUE`,
      };
    }
  }
  return null;
}

/**
 * A stack's settings pinned exactly, by folded name: its `flags`, and each plain `NAME=VALUE` of
 * its `env`, with the conditional ones of the record's architecture.
 */
function _settings(
  stack: Readonly<Record<string, string>>,
  architecture: string | undefined,
): Map<string, { readonly value: string; readonly what: string }> {
  const out = new Map<string, { value: string; what: string }>();
  for (const [key, raw] of Object.entries(stack)) {
    const name = _name(key);
    if (name === "flags") {
      out.set(name, { value: raw.trim(), what: `flags exactly '${raw.trim()}'` });
    }
    if (name !== "env") continue;
    for (const [variable, value, on] of _assignments(raw)) {
      if (on !== null && on !== architecture) continue;
      const where = on === null ? "" : ` on ${on}`;
      out.set(_variable(variable), { value, what: `${variable}=${value}${where}` });
    }
  }
  return out;
}

/** A device list of whole GPUs: indices and GPU UUIDs (or their prefixes), comma-separated. */
function _wholeGpus(): RegExp {
  const gpu = String.raw`(?:\d+|GPU-[0-9A-Fa-f]+(?:-[0-9A-Fa-f]+)*)`;
  return new RegExp(String.raw`^\s*${gpu}(?:\s*,\s*${gpu})*\s*$`);
}

/**
 * Environment variables that only pick devices, processes, rendezvous addresses, caches, logging
 * or CPU threads, never the GPU arithmetic, by name; where only some values are inert, those
 * values, or the pattern they match: turning NCCL's NVLink SHARP algorithm off keeps the ring and
 * tree the replay runs; `CUDA_VISIBLE_DEVICES` picks whole GPUs by index or UUID (`0,1`,
 * `GPU-8932f937-d72c-4106-c12f-20bd9faed9f6`), while a MIG instance (`MIG-<uuid>`,
 * `MIG-GPU-<uuid>/1/0`) runs on a slice of a GPU's SMs, which is not modelled.
 */
export const INERT_VARIABLES: Readonly<Record<string, readonly string[] | RegExp | "any">> = {
  CUDA_VISIBLE_DEVICES: _wholeGpus(),
  CUDA_DEVICE_ORDER: "any",
  PYTORCH_CUDA_ALLOC_CONF: "any",
  HF_HOME: "any",
  HF_HUB_CACHE: "any",
  HF_HUB_OFFLINE: "any",
  TRANSFORMERS_OFFLINE: "any",
  TOKENIZERS_PARALLELISM: "any",
  OMP_NUM_THREADS: "any",
  MASTER_ADDR: "any",
  MASTER_PORT: "any",
  RANK: "any",
  LOCAL_RANK: "any",
  NCCL_DEBUG: "any",
  NCCL_DEBUG_SUBSYS: "any",
  NCCL_SOCKET_IFNAME: "any",
  NCCL_NVLS_ENABLE: ["0"],
  VLLM_ENABLE_V1_MULTIPROCESSING: "any",
  VLLM_LOGGING_LEVEL: "any",
  VLLM_CONFIGURE_LOGGING: "any",
  VLLM_HOST_IP: "any",
  VLLM_PORT: "any",
};

/** What to do instead of running on a device the verifier does not model. */
const _WHOLE_GPU = "run on whole GPUs (CUDA_VISIBLE_DEVICES as GPU indices or GPU-<uuid>s)";

/** The NCCL settings `ncclEnvFinding` compares with a recorded all-reduce. */
const _NCCL_COMPARED = [
  "NCCL_ALGO",
  "NCCL_PROTO",
  "NCCL_MIN_NCHANNELS",
  "NCCL_MAX_NCHANNELS",
  "NCCL_MIN_CTAS",
  "NCCL_MAX_CTAS",
];

/**
 * Whether a variable set to a value is one the comparison knows: set by the stack's `env` on
 * some architecture (elsewhere it pins nothing), compared with a recorded all-reduce, or inert.
 */
function _knownVariables(
  stack: Readonly<Record<string, string>>,
): (variable: string, value: string) => boolean {
  const named = new Set(_NCCL_COMPARED.map(_variable));
  for (const [key, raw] of Object.entries(stack)) {
    if (_name(key) === "env") { for (const [v] of _assignments(raw)) named.add(_variable(v)); }
  }
  const inert = new Map(Object.entries(INERT_VARIABLES).map(([k, v]) => [_variable(k), v]));
  return (variable, value) => {
    const v = _variable(variable);
    if (named.has(v)) return true;
    const values = inert.get(v);
    const set = _unquote(value.trim());
    if (values === "any") return true;
    return values instanceof RegExp ? values.test(set) : values?.includes(set) === true;
  };
}

/**
 * The unreadable finding for a stated variable the stack does not pin and the comparison does not
 * know: `said` (the words the reason opens with) then what the value picks that the verifier does
 * not model (`_unmodelledDevice`), with whole GPUs as the advice, or else `unpinned` (that the
 * stack does not pin it), with the caller's `advice`.
 */
function _unpinnedVariable(
  variable: string,
  value: string,
  o: { readonly said: string; readonly unpinned: string; readonly advice: string },
): ComponentMismatch {
  const device = _unmodelledDevice(variable, value);
  return {
    kind: "unreadable",
    reason: `${o.said} ${device ?? o.unpinned}, so it cannot be compared with the run recomputed`,
    advice: device === null ? o.advice : _WHOLE_GPU,
  };
}

/**
 * What a variable's value picks that the verifier does not model, for a reason: a device list
 * naming a MIG instance (`CUDA_VISIBLE_DEVICES=MIG-<uuid>`) runs on a slice of the GPU, with fewer
 * SMs than the chip the profile describes; else null.
 */
function _unmodelledDevice(variable: string, value: string): string | null {
  if (_variable(variable) !== "cuda_visible_devices" || !/(?:^|[\s,])MIG-/i.test(value)) {
    return null;
  }
  return "selects a MIG instance (a slice of the GPU, with fewer SMs than its chip; MIG is not " +
    "modelled)";
}

/** Component names (folded) that hold an environment text. */
const _ENV_NAMES = new Set(["env", "environ", "environment", "envvars", "environmentvariables"]);

/** One `NAME=VALUE` of an environment text, with the separator or start before it. */
const _ASSIGNMENT =
  /(?:^|[\s;,&])(?:export\s+)?([A-Za-z_][A-Za-z0-9_]*)\s*=(?!=)\s*("[^"]*"|'[^']*'|[^\s;,&]*(?:[;,](?![A-Za-z_][A-Za-z0-9_]*\s*=)[^\s;,&]+)*)/g;

/**
 * Every `NAME=VALUE` written in a record's environment text, however separated (`;`, spaces,
 * newlines, commas, `&&`), after `export`, with `'...'` or `"..."` quotes removed (`NAME==1` is a
 * requirement, as pip writes one, not a setting). An unquoted
 * value goes on past a `,` or `;` followed at once by more than another `NAME=` (NCCL's lists:
 * `NCCL_ALGO=Ring,Tree`, `NCCL_ALGO=^ring;allreduce:tree`).
 */
function _statedAssignments(text: string): [string, string][] {
  const out: [string, string][] = [];
  for (const m of _joinedLines(text).matchAll(_ASSIGNMENT)) out.push([m[1]!, _unquote(m[2]!)]);
  return out;
}

/**
 * A text with its line continuations taken out, as a shell reads it: a backslash before a line
 * break joins the two lines (`A=1 \` then `B=2` is `A=1 B=2`; `A=x\` then `y` is `A=xy`), except
 * inside single quotes, where a backslash is itself. A line break after `\r` counts too (a text
 * copied with Windows line ends).
 */
function _joinedLines(text: string): string {
  let out = "";
  let quote: "'" | '"' | null = null;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (quote === "'") {
      if (c === "'") quote = null;
      out += c;
    } else if (c === "\\") {
      const lineEnd = /^\r?\n/.exec(text.slice(i + 1, i + 3));
      // A backslash escapes the character after it (`\"` opens no quote).
      if (lineEnd === null) out += text.slice(i, i + 2);
      i += lineEnd === null ? 1 : lineEnd[0].length;
    } else {
      if (c === '"') quote = quote === '"' ? null : '"';
      else if (c === "'" && quote === null) quote = "'";
      out += c;
    }
  }
  return out;
}

/** A value without one pair of surrounding quotes. */
function _unquote(v: string): string {
  return /^(["']).*\1$/s.test(v) ? v.slice(1, -1) : v;
}

/**
 * The `NAME=VALUE` parts of a stack's environment text (`;`-separated), in order, each with the
 * architecture it is set on (`on sm_90 NAME=VALUE`) or null (always).
 */
function _assignments(env: string): [string, string, string | null][] {
  const out: [string, string, string | null][] = [];
  for (const part of env.split(";")) {
    const m = /^(?:on (sm_[0-9]+[a-z]?) )?([A-Za-z_][A-Za-z0-9_]*)=(\S+)$/.exec(part.trim());
    if (m !== null) out.push([m[2]!, m[3]!, m[1] ?? null]);
  }
  return out;
}

/** Names that mean the same component, after `_name`'s folding. */
const _ALIASES: Readonly<Record<string, string>> = {
  torch: "pytorch",
  flashattention: "flashattn",
  // `torch.version.cuda`: the CUDA release PyTorch was built with (not the driver's or the
  // system toolkit's, which may differ).
  torchversioncuda: "pytorchcuda",
};

/**
 * A variable's name as compared (a pinned setting, or a component named like one): its letters,
 * digits and underscores, lower case. Unlike a component's name it keeps a `version` suffix:
 * `VLLM_FLASH_ATTN_VERSION` is a setting, `vllm_flash_attn` a library.
 */
function _variable(key: string): string {
  return key.toLowerCase().replace(/[^a-z0-9_]/g, "");
}

/**
 * Spellings of a library's name with its major version or build folded in: FlashAttention 2
 * (`flash_attn_2`, `FlashAttention2`, `fa2`) and PyTorch with its CUDA build (`torch cu128`).
 */
const _FAMILIES: readonly (readonly [RegExp, string])[] = [
  [/^(?:flashattn|flashattention|fa)2$/, "flashattn"],
  [/^(?:py)?torchcu\d{2,3}$/, "pytorch"],
];

/**
 * A component's name as the comparison reads it: its letters and digits, lower case, without a
 * `version` suffix (nor a `ver` word: `torch_ver`), and one name for each library's aliases
 * (`torch` and `PyTorch` are `pytorch`, `flash-attn` is `flashattn`).
 *
 * @param key the component's name as written
 * @returns the name compared
 * @example
 * ```ts
 * import { componentName } from "./stack_components.ts";
 * if (componentName("vLLM ") !== "vllm" || componentName("torch_version") !== "pytorch") {
 *   throw new Error();
 * }
 * ```
 */
export function componentName(key: string): string {
  return _name(key);
}

/** {@link componentName}. */
function _name(key: string): string {
  // `version` ends a name however written; `ver` only as a word of its own (`torch_ver`,
  // `TransformersVer`; `driver` keeps it).
  const k = key.replace(/(?:version|[\s_.-]ver)$/i, "").replace(/(?<=[a-z0-9])Ver$/, "")
    .toLowerCase().replace(/[^a-z0-9]/g, "");
  const alias = Object.hasOwn(_ALIASES, k) ? _ALIASES[k] : undefined; // `constructor` is a name
  return alias ?? _FAMILIES.find(([re]) => re.test(k))?.[1] ?? k;
}

/**
 * The release a value states, and where its text starts and ends: the first dotted number (`torch
 * 2.8.0+cu128` -> [2, 8, 0]; `FA2 2.8.3` -> [2, 8, 3]), else the first lone number (`91002`),
 * skipping numbers glued to a word (`FA2`, `cu128`, `flash_attn_2`; a `v` before the number is
 * its prefix: `v2.8.3`); null when there is none.
 */
function _release(value: string): _Release | null {
  const found = _releases(value);
  return found.find((x) => x.release.length > 1) ?? found[0] ?? null;
}

/** A number a value writes, as a release, and where its text starts and ends. */
interface _Release {
  readonly release: number[];
  readonly start: number;
  readonly end: number;
}

/** Every number a value writes that is not glued to a word, in order (see {@link _release}). */
function _releases(value: string): _Release[] {
  const found: _Release[] = [];
  for (const m of value.matchAll(/\d+(?:\.\d+)*/g)) {
    const before = value.slice(0, m.index);
    const glued = /[A-Za-z_]$/.test(before) && !/(?:^|[^A-Za-z])[vV]$/.test(before);
    if (!glued) {
      found.push({
        release: m[0].split(".").map(Number),
        start: m.index,
        end: m.index + m[0].length,
      });
    }
  }
  return found;
}

/**
 * A container image's or package's label for the release built for a CUDA (`-cuda12.8_py312`,
 * `-cuda12.8-cudnn9-runtime`): the CUDA, then only Python, cuDNN and image-flavour words.
 */
const _CUDA_LABEL = /^-cuda\d+(?:\.\d+)*(?:[-_](?:py\d+|cudnn\d+(?:\.\d+)*|runtime|devel))*$/;

/**
 * Whether a value's release is marked as another build than the release itself: anything after
 * its numbers but a CUDA build's label (`+cu128` is the release built for CUDA 12.8; an image's
 * `-cuda12.8-cudnn9-runtime`) and, for
 * NCCL, whose releases are numbered so, a release's `-N` suffix with the CUDA it was packaged for
 * (`2.27.3-1+cuda12.8`). A pre-release, development or post-release marker (`2.8.0a0`,
 * `4.57.0.dev0`, `2.8.0rc1`, `2.8.0.post1`, and Python packaging's other spellings: `_rc1`,
 * `r1`, `rev1`, a bare `-1`), a local label (`+5228986c39.nv25.05` is someone's own build), a
 * source snapshot (`-3-gabc1234`, `.g1234abc`) and any other text are another build.
 *
 * @param value the component's value
 * @param end where its release's numbers end
 * @param name the component's name as compared (`_name`)
 */
function _unreleased(value: string, end: number, name: string): string | null {
  const rest = value.slice(end).trim();
  if (rest === "" || /^\+cu\d{2,3}$/.test(rest) || _CUDA_LABEL.test(rest)) return null;
  if (name === "nccl" && /^-\d+(?:\+cuda\d+(?:\.\d+)*)?$/.test(rest)) return null;
  const shown = quoteShort(rest, 40);
  // A marker is a word of its own (`-cuda12.8` is not a `c` pre-release).
  const marker = /^[._-]?(?:a|b|c|rc|alpha|beta|pre|preview|dev|post|r|rev)(?![a-z])\d*/i
    .exec(rest);
  if (marker !== null) return `pre-release, development or post-release build (${shown})`;
  if (rest.startsWith("+")) return `local build (${shown})`;
  return `build other than the release (${shown} after its numbers)`;
}

/**
 * Whether a release is written as one undotted number of four or more digits where the stack's
 * value has dots: a library's integer encoding (`torch.backends.cudnn.version()` gives 91002 for
 * 9.10.2), whose scheme differs by library and major version, so it is not compared.
 */
function _encoded(release: readonly number[], rule: string): boolean {
  return release.length === 1 && release[0]! >= 1000 && /\d\.\d/.test(rule);
}

/** What a stack's value accepts, or undefined for a value that pins nothing. */
function _rule(value: string): ((release: number[]) => boolean) | undefined {
  const v = value.trim();
  const exact = /^v?(\d+(?:\.\d+)*)$/.exec(v);
  if (exact !== null) {
    const want = exact[1]!.split(".").map(Number);
    return (r) => _compare(r, want) === 0;
  }
  const patches = /^(\d+(?:\.\d+)+)\.x$/.exec(v);
  if (patches !== null) {
    // `4.57.x`: every release whose leading numbers are these (4.57.0, 4.57.6, not 4.58).
    const want = patches[1]!.split(".").map(Number);
    return (r) => want.every((n, i) => r[i] === n);
  }
  const series = /^(\d+)\.(\d*)x$/.exec(v);
  if (series !== null) {
    const [, major, minorPrefix] = series;
    // `4.5x`: minors of exactly one digit more than the prefix that begin with it (50..59): not
    // 4.5 itself, and not 4.500 or 4.5000, which only share the prefix's text.
    const minor = (r: number[]) => String(r[1] ?? "");
    return (r) =>
      r[0] === Number(major) &&
      (minorPrefix === "" ||
        (minor(r).startsWith(minorPrefix!) && minor(r).length === minorPrefix!.length + 1));
  }
  const above = /^>\s*(\d+(?:\.\d+)*)$/.exec(v);
  if (above !== null) {
    const floor = above[1]!.split(".").map(Number);
    return (r) => _compare(r, floor) > 0;
  }
  return undefined;
}

/** Compares two releases part by part, missing parts read as 0. */
function _compare(a: readonly number[], b: readonly number[]): number {
  for (let i = 0; i < Math.max(a.length, b.length); i++) {
    const d = (a[i] ?? 0) - (b[i] ?? 0);
    if (d !== 0) return d;
  }
  return 0;
}
