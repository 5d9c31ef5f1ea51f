/**
 * Import gate of `src/`: the folders are the architecture, and this checks that the code keeps
 * to it.
 *
 * - Direction: numerics <- hardware <- kernels <- model form the pure core; engine runs their
 *   plans; assets and claims are leaves; resolve turns asset bytes into parsed objects with the
 *   core's parsers; verify, attest and the prover use them; web (the browser checker) uses
 *   claims, verify and attest; cli sits on top and nothing imports it. Top-level files of `src/` (errors, JSON helpers, version) are shared leaves importable
 *   from anywhere.
 * - Doors: another folder is entered through its `mod.ts` only (a top folder through
 *   `<folder>/mod.ts`; a sibling or child subfolder that has a `mod.ts` through it).
 * - Purity: the pure core and web use no `Worker`, `SharedArrayBuffer`, `Atomics`, wasm instantiation
 *   or `Deno.*` (comments and string contents are not code), except what {@link PURE_EXCEPT} names:
 *   the checker page's entry starts the worker that runs the check.
 * - No import cycles between files (type-only imports included).
 *
 * Usage: `deno task check:imports` (exit 1 with the list of problems).
 *
 * @module
 */

/** Folders each src/ folder may import from (besides itself and the shared top-level files). */
export const ALLOWED: Readonly<Record<string, readonly string[]>> = {
  numerics: [],
  hardware: ["numerics"],
  kernels: ["numerics", "hardware"],
  model: ["numerics", "hardware", "kernels"],
  engine: ["numerics", "hardware", "kernels", "model"],
  assets: [],
  claims: [],
  resolve: ["numerics", "hardware", "kernels", "model", "engine", "assets"],
  verify: ["numerics", "hardware", "kernels", "model", "engine", "assets", "resolve", "claims"],
  attest: ["assets", "resolve", "claims", "verify"],
  web: ["claims", "verify", "attest"],
  prover: ["numerics", "hardware", "kernels", "model", "assets", "resolve", "claims", "verify"],
  pool: ["assets", "claims", "verify"],
  cli: [
    "numerics",
    "hardware",
    "kernels",
    "model",
    "engine",
    "assets",
    "resolve",
    "claims",
    "verify",
    "attest",
    "prover",
    "web",
    "pool",
  ],
};

/** Folders forming the pure core, and the browser checker (`web`, bundled for a page). */
export const PURE: readonly string[] = ["numerics", "hardware", "kernels", "model", "web"];

/**
 * Files of a pure folder allowed one of the impure names, each for a stated reason. The checker
 * page's entry (the DOM shell, bundled as the page's script) starts a worker for each check; the
 * check the worker runs is the pure `web` code.
 */
export const PURE_EXCEPT: Readonly<Record<string, readonly string[]>> = {
  "web/checker_page.ts": ["Worker"],
};

/** What the pure core must not use, with the name reported. */
const IMPURE: readonly [RegExp, string][] = [
  [/(?<![\w$.])Worker\b/, "Worker"],
  [/(?<![\w$.])SharedArrayBuffer\b/, "SharedArrayBuffer"],
  [/(?<![\w$.])Atomics\b/, "Atomics"],
  [
    /(?<![\w$.])(?:new\s+WebAssembly\s*\.\s*(?:Instance|Module)\b|WebAssembly\s*\.\s*(?:instantiate|compile)\w*)/,
    "wasm instantiation",
  ],
  [/(?<![\w$.])Deno\s*\./, "Deno.*"],
];

/**
 * Checks a set of source files of `src/`.
 *
 * @param sources path relative to `src/` (e.g. `kernels/gemm/gemm.ts`) -> file text
 * @returns one line per problem, empty when the files keep to the rules
 * @example
 * ```ts
 * import { checkImports } from "./check_imports.ts";
 * const ok = new Map([["kernels/a.ts", 'import { BF16 } from "../numerics/mod.ts";']]);
 * if (checkImports(ok).length !== 0) throw new Error();
 * const up = new Map([["numerics/a.ts", 'import { x } from "../kernels/mod.ts";']]);
 * if (checkImports(up).length !== 1) throw new Error();
 * ```
 */
export function checkImports(sources: ReadonlyMap<string, string>): string[] {
  const problems: string[] = [];
  const graph = new Map<string, string[]>();
  for (const [rel, text] of sources) {
    const { code, bare } = _views(text);
    const folder = _topFolder(rel);
    const edges: string[] = [];
    for (const spec of _specifiers(code)) {
      if (!spec.startsWith(".")) continue;
      const target = _join(_dir(rel), spec);
      if (target === null) {
        problems.push(`${rel}: imports '${spec}' outside src/`);
        continue;
      }
      edges.push(target);
      const problem = _importProblem(rel, { folder, target, doors: sources });
      if (problem !== undefined) problems.push(`${rel}: ${problem}`);
    }
    graph.set(rel, edges);
    if (folder !== null && PURE.includes(folder)) {
      for (const [re, name] of IMPURE) {
        if (PURE_EXCEPT[rel]?.includes(name)) continue;
        if (re.test(bare)) problems.push(`${rel}: the pure core must not use ${name}`);
      }
    }
  }
  for (const cycle of _cycles(graph)) problems.push(`import cycle: ${cycle.join(" -> ")}`);
  return problems;
}

/** The problem with one import, if any (`doors`: the files, to see which folders have a mod.ts). */
function _importProblem(
  rel: string,
  o: { folder: string | null; target: string; doors: ReadonlyMap<string, string> },
): string | undefined {
  const { folder, target } = o;
  const tFolder = _topFolder(target);
  if (tFolder === null) return undefined; // a shared top-level file
  if (folder === null) return `shared top-level file imports '${target}'`;
  if (tFolder !== folder) {
    const allowed = ALLOWED[folder];
    if (allowed === undefined) return `folder '${folder}' has no import rule`;
    if (!allowed.includes(tFolder)) return `${folder} must not import ${target}`;
    if (target !== `${tFolder}/mod.ts`) {
      return `imports '${target}' instead of going through ${tFolder}/mod.ts`;
    }
    return undefined;
  }
  const tDir = _dir(target);
  const fromDir = _dir(rel);
  const inside = fromDir === tDir || fromDir.startsWith(`${tDir}/`);
  if (!inside && !target.endsWith("/mod.ts") && o.doors.has(`${tDir}/mod.ts`)) {
    return `imports '${target}' instead of going through ${tDir}/mod.ts`;
  }
  return undefined;
}

/** Top folder of a path relative to src/ (null for a top-level file). */
function _topFolder(rel: string): string | null {
  return rel.includes("/") ? rel.split("/")[0] as string : null;
}

function _dir(rel: string): string {
  return rel.includes("/") ? rel.slice(0, rel.lastIndexOf("/")) : "";
}

/** Resolves a relative specifier against a folder of src/; null when it leaves src/. */
function _join(dir: string, spec: string): string | null {
  const parts = dir === "" ? [] : dir.split("/");
  for (const p of spec.split("/")) {
    if (p === "" || p === ".") continue;
    if (p === "..") {
      if (parts.length === 0) return null;
      parts.pop();
    } else parts.push(p);
  }
  return parts.join("/");
}

/** Module specifiers of static imports and re-exports, side-effect and dynamic imports. */
function _specifiers(code: string): string[] {
  const out: string[] = [];
  const patterns = [
    /\b(?:import|export)\s[^'"`;]*?\bfrom\s*["']([^"']+)["']/g,
    /\bimport\s*["']([^"']+)["']/g,
    /\bimport\s*\(\s*["']([^"']+)["']\s*\)/g,
  ];
  for (const re of patterns) for (const m of code.matchAll(re)) out.push(m[1] as string);
  return out;
}

/**
 * Two views of a file: `code` with comments blanked (strings kept, for import specifiers) and
 * `bare` with comments and string contents blanked (for the globals the core must not use).
 */
function _views(text: string): { code: string; bare: string } {
  let code = "";
  let bare = "";
  let i = 0;
  const put = (c: string, keepInCode: boolean, keepInBare: boolean) => {
    const blank = c === "\n" ? "\n" : " ";
    code += keepInCode ? c : blank;
    bare += keepInBare ? c : blank;
  };
  while (i < text.length) {
    const c = text[i] as string;
    const next = text[i + 1];
    if (c === "/" && next === "/") {
      while (i < text.length && text[i] !== "\n") put(text[i++] as string, false, false);
    } else if (c === "/" && next === "*") {
      const end = text.indexOf("*/", i + 2);
      const stop = end === -1 ? text.length : end + 2;
      while (i < stop) put(text[i++] as string, false, false);
    } else if (c === "/" && /(?:^|[(,=:[!&|?{};+\-*%<>~^]|\breturn)\s*$/.test(code.slice(-40))) {
      // A regular expression literal: its quotes are not strings, its slashes not comments.
      put(c, true, true);
      i++;
      let inClass = false;
      while (i < text.length && text[i] !== "\n" && (inClass || text[i] !== "/")) {
        if (text[i] === "\\") put(text[i++] as string, true, true);
        else if (text[i] === "[") inClass = true;
        else if (text[i] === "]") inClass = false;
        if (i < text.length) put(text[i++] as string, true, true);
      }
      if (i < text.length) put(text[i++] as string, true, true);
    } else if (c === '"' || c === "'" || c === "`") {
      put(c, true, true);
      i++;
      while (i < text.length && text[i] !== c) {
        if (text[i] === "\\") put(text[i++] as string, true, false);
        if (i < text.length) put(text[i++] as string, true, false);
      }
      if (i < text.length) put(text[i++] as string, true, true);
    } else put(text[i++] as string, true, true);
  }
  return { code, bare };
}

/** Every import cycle (one per strongly connected component), each closed on its first file. */
function _cycles(graph: ReadonlyMap<string, readonly string[]>): string[][] {
  // Tarjan's strongly connected components, iterative over a sorted node list.
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const onStack = new Set<string>();
  const stack: string[] = [];
  const out: string[][] = [];
  let counter = 0;
  const strong = (v: string) => {
    index.set(v, counter);
    low.set(v, counter++);
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!graph.has(w)) continue;
      if (!index.has(w)) {
        strong(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) !== index.get(v)) return;
    const component: string[] = [];
    let w: string;
    do {
      w = stack.pop()!;
      onStack.delete(w);
      component.push(w);
    } while (w !== v);
    if (component.length > 1 || (graph.get(v) ?? []).includes(v)) {
      out.push(_cyclePath(graph, component));
    }
  };
  for (const v of [...graph.keys()].sort()) if (!index.has(v)) strong(v);
  return out;
}

/** One closed path through a strongly connected component, from its first file in order. */
function _cyclePath(graph: ReadonlyMap<string, readonly string[]>, component: string[]): string[] {
  const members = new Set(component);
  const start = [...component].sort()[0] as string;
  // Breadth-first search for the shortest way back to `start` inside the component.
  const prev = new Map<string, string>();
  const queue = [start];
  while (queue.length > 0) {
    const v = queue.shift() as string;
    for (const w of graph.get(v) ?? []) {
      if (!members.has(w)) continue;
      if (w === start) {
        const path = [start];
        for (let u = v; u !== start; u = prev.get(u)!) path.splice(1, 0, u);
        return [...path, start];
      }
      if (!prev.has(w)) {
        prev.set(w, v);
        queue.push(w);
      }
    }
  }
  return [start, start];
}

/** Reads every `.ts` file under a folder, keyed by its path relative to that folder. */
async function _readTree(root: string): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  const walk = async (dir: string) => {
    for await (const e of Deno.readDir(`${root}/${dir}`)) {
      const rel = dir === "" ? e.name : `${dir}/${e.name}`;
      if (e.isDirectory) await walk(rel);
      else if (e.name.endsWith(".ts")) out.set(rel, await Deno.readTextFile(`${root}/${rel}`));
    }
  };
  await walk("");
  return out;
}

if (import.meta.main) {
  const root = new URL("../src", import.meta.url).pathname;
  const problems = checkImports(await _readTree(root));
  if (problems.length > 0) {
    console.error(`import check failed:\n  ${problems.join("\n  ")}`);
    Deno.exit(1);
  }
  console.log("import check: ok (direction, mod.ts doors, pure core, no cycles)");
}
