/**
 * The Kubernetes Indexed Job in deploy/kubernetes/ validated offline (kubernetes-models' schema
 * validation, plus a strict allow-list of the fields it uses, since the schema accepts unknown
 * fields), and its container arguments run here for every completion index, with the container
 * image's permission flags: the merge of their results signs the single-process bytes.
 */
import assert from "node:assert/strict";
import { parse } from "yaml";
import { Job } from "kubernetes-models/batch/v1/Job";
import { REPO_ROOT, runBitaudit } from "../cli/_run.ts";
import { mergesToSingle, plannedAudit } from "./_shard_run.ts";

const text = await Deno.readTextFile(`${REPO_ROOT}/deploy/kubernetes/audit-job.yaml`);
const dockerfile = await Deno.readTextFile(`${REPO_ROOT}/deploy/container/Dockerfile`);
// deno-lint-ignore no-explicit-any
const job: any = parse(text, { uniqueKeys: true, strict: true, prettyErrors: false });
const container = job.spec.template.spec.containers[0];

/** Field names the manifest may use, per object path ("*" for array elements). */
const KNOWN: Record<string, string[]> = {
  "": ["apiVersion", "kind", "metadata", "spec"],
  "metadata": ["name", "labels"],
  "spec": [
    "completionMode",
    "completions",
    "parallelism",
    "backoffLimitPerIndex",
    "maxFailedIndexes",
    "ttlSecondsAfterFinished",
    "template",
  ],
  "spec.template": ["metadata", "spec"],
  "spec.template.metadata": ["labels"],
  "spec.template.spec": [
    "restartPolicy",
    "automountServiceAccountToken",
    "securityContext",
    "containers",
    "volumes",
  ],
  "spec.template.spec.securityContext": ["runAsNonRoot", "runAsUser", "runAsGroup", "fsGroup"],
  "spec.template.spec.containers.*": [
    "name",
    "image",
    "args",
    "resources",
    "securityContext",
    "volumeMounts",
  ],
  "spec.template.spec.containers.*.resources": ["requests", "limits"],
  "spec.template.spec.containers.*.resources.requests": ["cpu", "memory"],
  "spec.template.spec.containers.*.resources.limits": ["cpu", "memory"],
  "spec.template.spec.containers.*.securityContext": ["allowPrivilegeEscalation", "capabilities"],
  "spec.template.spec.containers.*.securityContext.capabilities": ["drop"],
  "spec.template.spec.containers.*.volumeMounts.*": ["name", "mountPath", "subPath", "readOnly"],
  "spec.template.spec.volumes.*": ["name", "persistentVolumeClaim"],
  "spec.template.spec.volumes.*.persistentVolumeClaim": ["claimName"],
};
const FREE = new Set(["metadata.labels", "spec.template.metadata.labels"]); // any label keys

function unknownFields(v: unknown, path: string): string[] {
  if (Array.isArray(v)) return v.flatMap((x) => unknownFields(x, path ? `${path}.*` : "*"));
  if (typeof v !== "object" || v === null || FREE.has(path)) return [];
  const known = KNOWN[path];
  if (known === undefined) return typeof v === "object" ? [`${path} (no object expected)`] : [];
  return Object.entries(v).flatMap(([k, x]) =>
    known.includes(k) ? unknownFields(x, path ? `${path}.${k}` : k) : [`${path}.${k}`]
  );
}

Deno.test("the Indexed Job validates against the Kubernetes schema and uses no unknown field", () => {
  new Job(job).validate();
  assert.deepEqual(unknownFields(job, ""), []);
  assert.deepEqual(unknownFields({ ...job, spec: { ...job.spec, backoffLimitPerIndx: 1 } }, ""), [
    "spec.backoffLimitPerIndx",
  ]);
  assert.throws(() =>
    new Job({ ...job, spec: { ...job.spec, completionMode: "indexed" } }).validate()
  );
});

Deno.test("the Indexed Job runs one shard per index, retried per index, results on the volume", () => {
  const { spec } = job;
  assert.equal(spec.completionMode, "Indexed");
  assert.ok(spec.backoffLimitPerIndex >= 1);
  assert.equal(spec.template.spec.restartPolicy, "Never"); // required by backoffLimitPerIndex
  const args: string[] = container.args;
  assert.deepEqual(args.slice(0, 2), ["audit", "work"]);
  assert.equal(
    args[args.indexOf("--shard") + 1],
    String(spec.completions),
    "--shard n = completions",
  );
  const out = args[args.indexOf("--out") + 1]!;
  assert.match(out, /\$\(JOB_COMPLETION_INDEX\)/);
  const mounts: { mountPath: string; readOnly?: boolean }[] = container.volumeMounts;
  const writable = mounts.filter((m) => !m.readOnly).map((m) => m.mountPath);
  assert.ok(writable.some((m) => out.startsWith(`${m}/`)), "results on a writable volume");
  const plan = args[args.indexOf("--plan") + 1]!;
  assert.ok(mounts.some((m) => plan.startsWith(`${m.mountPath}/`)), "plan on a mounted volume");
  assert.match(dockerfile, /--allow-write=\/audit\/results"/);
});

Deno.test("the Job's container arguments, run for every index with the image's permissions, merge to the single-process attestation", async () => {
  const a = await plannedAudit(6);
  const results = `${a.f.dir}/results`;
  await Deno.mkdir(results);
  const entry = JSON.parse(/ENTRYPOINT (\[[^\]]*\])/s.exec(dockerfile)![1]!.replaceAll("\\\n", ""));
  const map = (s: string) =>
    s.replaceAll("/audit/input", a.input).replaceAll("/audit/results", results)
      .replaceAll("/audit", a.f.dir).replaceAll("/app", REPO_ROOT);
  const perms = (entry as string[]).filter((x) => x.startsWith("--allow-")).map(map);
  const n = job.spec.completions as number;
  for (let i = 0; i < n; i++) {
    const args = (container.args as string[]).map((x) =>
      map(x.replace("$(JOB_COMPLETION_INDEX)", `${i}`))
    );
    const r = await runBitaudit(args, { perms, env: { JOB_COMPLETION_INDEX: String(i) } });
    assert.equal(r.code, 0, r.stderr);
  }
  const files = Array.from({ length: n }, (_, i) => `${results}/results-${i}.jsonl`);
  const m = await mergesToSingle(a, files, "merged");
  assert.equal(m.code, 1, m.stderr);
  assert.ok(m.same, "byte-identical attestation and report");
});
