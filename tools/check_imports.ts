/**
 * Import-direction gate: numerics <- hardware <- kernels <- model; assets and claims are leaves;
 * verify and attest use them; cli sits on top and nothing imports it. Top-level files of `src/`
 * (errors, json helpers, version) are shared leaves importable from anywhere.
 *
 * Usage: `deno task check:imports` (exit 1 on the first violation list).
 *
 * @module
 */

/** Folders each src/ folder may import from (besides itself and the shared top-level files). */
const ALLOWED: Record<string, string[]> = {
  numerics: [],
  hardware: ["numerics"],
  kernels: ["numerics", "hardware"],
  model: ["numerics", "hardware", "kernels"],
  assets: [],
  claims: [],
  verify: ["numerics", "hardware", "kernels", "model", "assets", "claims"],
  attest: ["assets", "claims", "verify"],
  prover: ["numerics", "hardware", "kernels", "model", "assets", "claims", "verify"],
  pool: ["assets", "claims", "verify"],
  cli: [
    "numerics",
    "hardware",
    "kernels",
    "model",
    "assets",
    "claims",
    "verify",
    "attest",
    "prover",
    "pool",
  ],
};
/** Folders forming the pure core: no `Deno.` use allowed. */
const PURE = ["numerics", "hardware", "kernels", "model"];

const root = new URL("../src/", import.meta.url).pathname;
const problems: string[] = [];

async function* files(dir: string): AsyncGenerator<string> {
  for await (const e of Deno.readDir(dir)) {
    const p = `${dir}/${e.name}`;
    if (e.isDirectory) yield* files(p);
    else if (e.name.endsWith(".ts")) yield p;
  }
}

for await (const file of files(root.replace(/\/$/, ""))) {
  const rel = file.slice(root.length);
  const folder = rel.includes("/") ? rel.split("/")[0] as string : null;
  const text = await Deno.readTextFile(file);
  const specifiers = [...text.matchAll(/(?:import|export)[^'"]*?from\s*["']([^"']+)["']/g)]
    .map((m) => m[1] as string);
  for (const spec of specifiers) {
    if (!spec.startsWith(".")) continue;
    const target = new URL(spec, `file://${file}`).pathname;
    if (!target.startsWith(root)) {
      problems.push(`${rel}: imports '${spec}' outside src/`);
      continue;
    }
    const tRel = target.slice(root.length);
    const tFolder = tRel.includes("/") ? tRel.split("/")[0] as string : null;
    if (tFolder === null || tFolder === folder) continue;
    if (folder === null) {
      problems.push(`${rel}: shared top-level file imports '${tRel}'`);
      continue;
    }
    const allowed = ALLOWED[folder];
    if (allowed === undefined) problems.push(`${rel}: folder '${folder}' has no import rule`);
    else if (!allowed.includes(tFolder)) problems.push(`${rel}: ${folder} must not import ${tRel}`);
  }
  if (
    folder !== null && PURE.includes(folder) && /\bDeno\./.test(text.replace(/^\s*\*.*$/gm, ""))
  ) {
    problems.push(`${rel}: the pure core must not use Deno.*`);
  }
}

if (problems.length > 0) {
  console.error(`import-direction check failed:\n  ${problems.join("\n  ")}`);
  Deno.exit(1);
}
console.log("import-direction check: ok");
