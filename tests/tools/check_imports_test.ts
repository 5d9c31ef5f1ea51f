import assert from "node:assert/strict";
import { checkImports } from "../../tools/check_imports.ts";

/** A small clean tree: every import points down and goes through a mod.ts. */
const CLEAN: Record<string, string> = {
  "errors.ts": "export class E extends Error {}",
  "numerics/mod.ts": 'export { BF16 } from "./format.ts";',
  "numerics/format.ts": "export const BF16 = 1;",
  "hardware/mod.ts": 'export * from "./tensor_core/mod.ts";',
  "hardware/tensor_core/mod.ts": 'export { walk } from "./walk.ts";',
  "hardware/tensor_core/walk.ts": [
    'import { BF16 } from "../../numerics/mod.ts";',
    'import { E } from "../../errors.ts";',
    "// Deno.readFile, new Worker(url) and Atomics in a comment are not code.",
    "/* SharedArrayBuffer, WebAssembly.instantiate */",
    'export const walk = () => { if (!BF16) throw new E("no Deno.exit, no Atomics here"); };',
    "export const re = /[\"'/]+/g; // a quote in a regular expression is not a string",
  ].join("\n"),
  "kernels/mod.ts": 'export * from "./attention/mod.ts";\nexport * from "./math/mod.ts";',
  "kernels/math/mod.ts": "export const ex2 = 1;",
  "kernels/attention/mod.ts": 'export * from "./plan.ts";',
  "kernels/attention/plan.ts": [
    'import { walk } from "../../hardware/mod.ts";',
    'import { ex2 } from "../math/mod.ts";',
    'import type { Options } from "./options.ts";',
    "export const plan = (o: Options) => [walk, ex2, o];",
  ].join("\n"),
  "kernels/attention/options.ts": "export interface Options { heads: number }",
  "engine/mod.ts": [
    'import { plan } from "../kernels/mod.ts";',
    "export const run = () => { new Worker(new URL('./w.ts', import.meta.url)); Atomics.add;",
    "  new SharedArrayBuffer(4); WebAssembly.instantiate; new WebAssembly.Module(Deno.readFileSync('x')); plan; };",
  ].join("\n"),
  "resolve/mod.ts":
    'import { run } from "../engine/mod.ts";\nimport { plan } from "../kernels/mod.ts";',
  "verify/mod.ts": 'import "../resolve/mod.ts";\nconst m = await import("../engine/mod.ts");',
  "cli/main.ts": 'import { x } from "../verify/mod.ts";\nimport { y } from "./commands/audit.ts";',
  "cli/commands/audit.ts": 'import { z } from "../../resolve/mod.ts";',
};

/** The clean tree with some files replaced or added. */
function tree(over: Record<string, string>): Map<string, string> {
  return new Map(Object.entries({ ...CLEAN, ...over }));
}

/** Asserts that exactly the expected problems are reported. */
function refuses(over: Record<string, string>, expected: RegExp[]): void {
  const problems = checkImports(tree(over));
  assert.equal(problems.length, expected.length, problems.join("\n"));
  for (const re of expected) assert.ok(problems.some((p) => re.test(p)), `${re}: ${problems}`);
}

Deno.test("checkImports() accepts a clean tree (comments, strings and regular expressions are not code)", () => {
  assert.deepEqual(checkImports(tree({})), []);
});

Deno.test("checkImports() refuses an import against the direction", () => {
  refuses({ "numerics/up.ts": 'import { walk } from "../hardware/mod.ts";' }, [
    /numerics\/up\.ts: numerics must not import hardware\/mod\.ts/,
  ]);
  refuses({ "kernels/x.ts": 'export { run } from "../engine/mod.ts";' }, [
    /kernels must not import engine/,
  ]);
  refuses({ "engine/x.ts": 'import { v } from "../verify/mod.ts";' }, [/engine must not import/]);
  refuses({ "resolve/x.ts": 'import { v } from "../verify/mod.ts";' }, [/resolve must not import/]);
  refuses({ "verify/x.ts": 'import { m } from "../cli/main.ts";' }, [/verify must not import/]);
});

Deno.test("checkImports() refuses imports that bypass another folder's mod.ts", () => {
  refuses({ "engine/x.ts": 'import { plan } from "../kernels/attention/plan.ts";' }, [
    /engine\/x\.ts: imports 'kernels\/attention\/plan\.ts' instead of going through kernels\/mod\.ts/,
  ]);
  refuses({ "verify/x.ts": 'import { r } from "../resolve/load.ts";' }, [
    /instead of going through resolve\/mod\.ts/,
  ]);
  refuses({ "kernels/math/y.ts": 'import type { Options } from "../attention/options.ts";' }, [
    /imports 'kernels\/attention\/options\.ts' instead of going through kernels\/attention\/mod\.ts/,
  ]);
});

const IMPURE = [
  ["Worker", "Worker", "export const w = new Worker(new URL('./w.ts', import.meta.url));"],
  ["SharedArrayBuffer", "SharedArrayBuffer", "export const b = new SharedArrayBuffer(8);"],
  ["Atomics", "Atomics", "export const add = (a: Int32Array) => Atomics.add(a, 0, 1);"],
  [
    "WebAssembly.instantiate",
    "wasm instantiation",
    "export const i = await WebAssembly.instantiate(b);",
  ],
  [
    "new WebAssembly.Instance",
    "wasm instantiation",
    "export const i = new WebAssembly.Instance(m, {});",
  ],
  ["Deno.*", "Deno\\.\\*", "export const t = Deno.readTextFileSync('x');"],
] as const;

for (const [label, reported, code] of IMPURE) {
  Deno.test(`checkImports() refuses ${label} in each folder of the pure core`, () => {
    for (const folder of ["numerics", "hardware", "kernels", "model"]) {
      refuses({ [`${folder}/impure.ts`]: code }, [
        new RegExp(`${folder}/impure\\.ts: the pure core must not use ${reported}`),
      ]);
    }
  });
}

Deno.test("checkImports() lets the checker page's entry, and no other web file, start a worker", () => {
  const code = IMPURE[0][2];
  assert.deepEqual(checkImports(new Map([["web/checker_page.ts", code]])), []);
  refuses({ "web/check_files.ts": code }, [
    /web\/check_files\.ts: the pure core must not use Worker/,
  ]);
  refuses({ "web/checker_page.ts": IMPURE[1][2] }, [/must not use SharedArrayBuffer/]);
});

Deno.test("checkImports() refuses import cycles, type-only imports included", () => {
  refuses({
    "kernels/attention/options.ts": [
      'import type { plan } from "./plan.ts";',
      "export interface Options { heads: number; p?: typeof plan }",
    ].join("\n"),
  }, [
    /import cycle: kernels\/attention\/options\.ts -> kernels\/attention\/plan\.ts -> kernels\/attention\/options\.ts/,
  ]);
  refuses({ "claims/self.ts": 'export * from "./self.ts";' }, [
    /import cycle: claims\/self\.ts -> claims\/self\.ts/,
  ]);
});

Deno.test("checkImports() refuses imports leaving src/, shared files importing folders, and folders without a rule", () => {
  refuses({ "verify/x.ts": 'import { t } from "../../tools/x.ts";' }, [/outside src\//]);
  refuses({ "json.ts": 'import { BF16 } from "./numerics/mod.ts";' }, [
    /json\.ts: shared top-level file imports 'numerics\/mod\.ts'/,
  ]);
  refuses({ "misc/x.ts": 'import { BF16 } from "../numerics/mod.ts";' }, [
    /folder 'misc' has no import rule/,
  ]);
});
