/**
 * The Kubernetes Indexed Job in deploy/kubernetes/ validated offline (kubernetes-models' schema
 * validation, plus a strict allow-list of the fields it uses, since the schema accepts unknown
 * fields), and its pod run here for every completion index: the worker key Secret as the kubelet
 * mounts it, the init container's command, then the container arguments with the container
 * image's permission flags. The merge of their results signs the single-process bytes.
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
const pod = job.spec.template.spec;
const container = pod.containers[0];

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
    "initContainers",
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
  "spec.template.spec.initContainers.*": [
    "name",
    "image",
    "command",
    "securityContext",
    "volumeMounts",
  ],
  "spec.template.spec.initContainers.*.securityContext": [
    "allowPrivilegeEscalation",
    "capabilities",
  ],
  "spec.template.spec.initContainers.*.securityContext.capabilities": ["drop"],
  "spec.template.spec.initContainers.*.volumeMounts.*": ["name", "mountPath", "readOnly"],
  "spec.template.spec.volumes.*": ["name", "persistentVolumeClaim", "secret", "emptyDir"],
  "spec.template.spec.volumes.*.persistentVolumeClaim": ["claimName"],
  "spec.template.spec.volumes.*.secret": ["secretName", "defaultMode", "items"],
  "spec.template.spec.volumes.*.secret.items.*": ["key", "path"],
  "spec.template.spec.volumes.*.emptyDir": ["medium", "sizeLimit"],
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

interface Mount {
  name: string;
  mountPath: string;
  readOnly?: boolean;
}

/** The mount of a container that holds `path` (the deepest one). */
function mountOf(c: { volumeMounts: Mount[] }, path: string): Mount | undefined {
  return c.volumeMounts.filter((m) => path.startsWith(`${m.mountPath}/`))
    .sort((x, y) => y.mountPath.length - x.mountPath.length)[0];
}

// deno-lint-ignore no-explicit-any
const volume = (name: string): any => pod.volumes.find((v: { name: string }) => v.name === name);
/** The worker's `--key` file. */
const keyFile: string = container.args[container.args.indexOf("--key") + 1];
/** The init container that writes that file: `install -m 0400 <Secret's file> <keyFile>`. */
const keyInit = pod.initContainers?.find((c: { command: string[] }) =>
  c.command.at(-1) === keyFile
);
// deno-lint-ignore no-explicit-any
const secretVolume: any = pod.volumes.find((v: { secret?: unknown }) => v.secret !== undefined);

/**
 * Mode of a Secret's file as the kubelet writes it: `defaultMode`, plus group read on every file
 * of the volume when the pod sets fsGroup (SetVolumeOwnership in kubernetes/pkg/volume).
 */
function secretFileMode(): number {
  const mode: number = secretVolume.secret.defaultMode ?? 0o644;
  return pod.securityContext?.fsGroup === undefined ? mode : mode | 0o440;
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

Deno.test("the Job signs with a worker key from a read-only Secret, copied to a file only its user reads", () => {
  assert.ok(keyFile?.startsWith("/audit/"), "--key <file> under /audit, which the image may read");
  assert.match(dockerfile, /--allow-read=\/app,\/audit"/);
  const { secret } = secretVolume;
  assert.equal(secret.secretName, "bitaudit-worker-key");
  assert.equal(secret.defaultMode, 0o400);
  assert.deepEqual(secret.items, [{ key: "worker.key", path: "worker.key" }]);
  const all: { volumeMounts: Mount[] }[] = [...pod.initContainers, ...pod.containers];
  const secretMounts = all.flatMap((c) => c.volumeMounts).filter((m) =>
    m.name === secretVolume.name
  );
  assert.ok(secretMounts.length > 0 && secretMounts.every((m) => m.readOnly), "Secret read-only");
  // fsGroup leaves the Secret's file group-readable, which the CLI refuses: the init container
  // copies it, mode 0400, into a memory-backed folder that the worker mounts read-only.
  assert.equal(secretFileMode(), 0o440);
  assert.deepEqual(keyInit?.command.slice(0, 3), ["install", "-m", "0400"]);
  assert.equal(mountOf(keyInit, keyInit.command.at(-2))?.name, secretVolume.name);
  const keys = mountOf(container, keyFile)!;
  assert.ok(keys.readOnly, "the worker mounts its key read-only");
  assert.equal(mountOf(keyInit, keyFile)?.name, keys.name);
  assert.equal(volume(keys.name).emptyDir?.medium, "Memory");
  for (const cmd of ["bitaudit key generate --out worker", "--worker-pub worker.pub"]) {
    assert.ok(text.includes(cmd), cmd);
  }
  assert.match(text, /kubectl create secret generic bitaudit-worker-key --from-file=worker\.key=/);
});

Deno.test("the Job's pod, run for every index with the image's permissions, merges to the single-process attestation", async () => {
  const a = await plannedAudit(6);
  const results = `${a.f.dir}/results`;
  await Deno.mkdir(results);
  const entry = JSON.parse(/ENTRYPOINT (\[[^\]]*\])/s.exec(dockerfile)![1]!.replaceAll("\\\n", ""));
  const map = (s: string) =>
    s.replaceAll("/audit/input", a.input).replaceAll("/audit/results", results)
      .replaceAll("/audit", a.f.dir).replaceAll("/app", REPO_ROOT);
  const perms = (entry as string[]).filter((x) => x.startsWith("--allow-")).map(map);
  const n = job.spec.completions as number;
  // The kubelet: the Secret's file, with the mode fsGroup leaves it, and an empty folder.
  const secretFile: string = keyInit.command.at(-2);
  await Deno.mkdir(map(secretFile.replace(/\/[^/]*$/, "")), { recursive: true });
  await Deno.writeFile(map(secretFile), await Deno.readFile(a.f.worker.key));
  await Deno.chmod(map(secretFile), secretFileMode());
  await Deno.mkdir(map(keyFile.replace(/\/[^/]*$/, "")), { recursive: true });
  const run = (i: number, key = keyFile) =>
    runBitaudit(
      (container.args as string[]).map((x) =>
        map(x.replace("$(JOB_COMPLETION_INDEX)", `${i}`).replace(keyFile, key))
      ),
      { perms, env: { JOB_COMPLETION_INDEX: String(i) } },
    );
  const refused = await run(0, secretFile);
  assert.equal(refused.code, 2, refused.stderr);
  assert.match(refused.stderr, /^error \[KEY_PERMISSIONS\]/, "the Secret's file as mounted");
  const [cmd, ...args] = (keyInit.command as string[]).map(map);
  const init = await new Deno.Command(cmd!, { args, stderr: "piped" }).output();
  assert.equal(init.code, 0, new TextDecoder().decode(init.stderr));
  assert.equal((await Deno.stat(map(keyFile))).mode! & 0o777, 0o400, "the init container's copy");
  for (let i = 0; i < n; i++) {
    const r = await run(i);
    assert.equal(r.code, 0, r.stderr);
  }
  const files = Array.from({ length: n }, (_, i) => `${results}/results-${i}.jsonl`);
  const m = await mergesToSingle(a, files, "merged");
  assert.equal(m.code, 1, m.stderr);
  assert.ok(m.same, "byte-identical attestation and report");
});
