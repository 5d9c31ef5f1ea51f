/**
 * The pool behind a locked-down NATS server: TLS required with client certificates checked
 * against a private CA, and only listed NKey users admitted. `worker` and `audit serve` connect
 * with `--nats-creds`, `--nats-ca`, `--nats-cert` and `--nats-cert-key` and complete an audit;
 * without each piece the server or the TLS check refuses them (NATS_CONNECT), and files that are
 * not what their option takes are refused before any connection (BAD_NATS_ACCESS,
 * KEY_PERMISSIONS).
 */
import assert from "node:assert/strict";
import { nkeys } from "@nats-io/transport-node";
import { assertCliCode } from "../_assert_code.ts";
import { tempDir } from "../_temp.ts";
import { makeAuditFixture } from "../cli/_audit_fixture.ts";
import { REPO_ROOT, runBitaudit } from "../cli/_run.ts";
import { startNatsServer } from "./_nats_server.ts";
import { POOL_TIME as TIME, poolPlan } from "./_plan.ts";
import { spawnBitaudit as spawn } from "./_spawn.ts";

async function openssl(dir: string, args: string[]): Promise<void> {
  const r = await new Deno.Command("openssl", { args, cwd: dir, stdout: "null", stderr: "piped" })
    .output();
  if (!r.success) throw new Error(`openssl ${args[0]}: ${new TextDecoder().decode(r.stderr)}`);
}

/** A private CA, a server certificate for 127.0.0.1 and a client certificate, all P-256. */
async function makePki(dir: string): Promise<void> {
  const key = (name: string) =>
    openssl(dir, [
      "genpkey",
      "-algorithm",
      "EC",
      "-pkeyopt",
      "ec_paramgen_curve:P-256",
      "-out",
      name,
    ]);
  for (const k of ["ca.key", "server.key", "client.key", "localhost.key"]) await key(k);
  await openssl(dir, [
    "req",
    "-x509",
    "-new",
    "-key",
    "ca.key",
    "-subj",
    "/CN=bitaudit test NATS CA",
    "-days",
    "2",
    "-addext",
    "basicConstraints=critical,CA:TRUE",
    "-addext",
    "keyUsage=critical,keyCertSign",
    "-out",
    "ca.pem",
  ]);
  for (
    const [name, cn, ext] of [
      ["server", "127.0.0.1", "subjectAltName=IP:127.0.0.1\nextendedKeyUsage=serverAuth\n"],
      ["client", "bitaudit-worker", "extendedKeyUsage=clientAuth\n"],
      ["localhost", "localhost", "subjectAltName=DNS:localhost\nextendedKeyUsage=serverAuth\n"],
    ] as const
  ) {
    await Deno.writeTextFile(`${dir}/${name}.ext`, ext);
    await openssl(dir, [
      "req",
      "-new",
      "-key",
      `${name}.key`,
      "-subj",
      `/CN=${cn}`,
      "-out",
      `${name}.csr`,
    ]);
    await openssl(dir, [
      "x509",
      "-req",
      "-in",
      `${name}.csr`,
      "-CA",
      "ca.pem",
      "-CAkey",
      "ca.key",
      "-CAcreateserial",
      "-days",
      "2",
      "-extfile",
      `${name}.ext`,
      "-out",
      `${name}.pem`,
    ]);
  }
  for (const k of ["ca.key", "server.key", "client.key", "localhost.key"]) {
    await Deno.chmod(`${dir}/${k}`, 0o600);
  }
}

async function writeSecret(path: string, text: string): Promise<string> {
  await Deno.writeTextFile(path, text, { mode: 0o600 });
  await Deno.chmod(path, 0o600);
  return path;
}

Deno.test({
  name:
    "a TLS, client-certificate and NKey locked NATS server: worker and serve get in with every piece, and only then",
  fn: async () => {
    const pki = await tempDir({ prefix: "bitaudit-nats-pki-" });
    await makePki(pki);
    const user = nkeys.createUser();
    const stranger = nkeys.createUser();
    const dec = new TextDecoder();
    const seed = await writeSecret(`${pki}/user.nk`, dec.decode(user.getSeed()) + "\n");
    const strangerSeed = await writeSecret(`${pki}/stranger.nk`, dec.decode(stranger.getSeed()));
    const nats = await startNatsServer([
      "tls {",
      `  cert_file: "${pki}/server.pem"`,
      `  key_file: "${pki}/server.key"`,
      `  ca_file: "${pki}/ca.pem"`,
      "  verify: true",
      "}",
      `authorization { users = [ { nkey: "${user.getPublicKey()}" } ] }`,
    ].join("\n"));
    const f = await makeAuditFixture({ records: 2, falsify: [] });
    const tlsUrl = nats.url.replace("nats://", "tls://");
    const access = [
      "--nats-creds",
      seed,
      "--nats-ca",
      `${pki}/ca.pem`,
      "--nats-cert",
      `${pki}/client.pem`,
      "--nats-cert-key",
      `${pki}/client.key`,
    ];
    const worker = (url: string, extra: string[]) =>
      runBitaudit([
        "worker",
        "--nats",
        url,
        "--log",
        f.log,
        "--key",
        f.worker.key,
        "--max-idle",
        "1",
        ...extra,
      ], {
        perms: [`--allow-read=${REPO_ROOT},${f.dir},${pki}`, `--allow-net=${nats.hostPort}`],
      });
    try {
      // Every piece: in (no plan served, so the worker idles out).
      const ok = await worker(tlsUrl, access);
      assert.equal(ok.code, 0, ok.stderr);
      assert.match(ok.stdout, /^worker: 0 items done$/m);
      const without = (flag: string, n = 2) => {
        const i = access.indexOf(flag);
        return [...access.slice(0, i), ...access.slice(i + n)];
      };
      const refused: [string, string[], RegExp][] = [
        ["no credentials", without("--nats-creds"), /Authorization Violation/i],
        ["a seed the server does not list", [
          ...without("--nats-creds"),
          "--nats-creds",
          strangerSeed,
        ], /Authorization Violation/i],
        ["no CA: the system's CAs do not know the server", without("--nats-ca"), /certificate/i],
        ["no client certificate", without("--nats-cert", 4), /./],
      ];
      for (const [what, args, why] of refused) {
        const r = await worker(tlsUrl, args);
        assertCliCode(r.stderr, "NATS_CONNECT");
        assert.equal(r.code, 2, what);
        assert.match(r.stderr, why, `${what}: ${r.stderr}`);
        assert.equal(r.stderr.trim().split("\n").length, 1, `${what}: one line: ${r.stderr}`);
      }

      // audit serve with the same access, and a worker: the plan is audited through the server.
      const plan = await poolPlan(f, { k: 2, single: 0 });
      const net = `--allow-net=${nats.hostPort}`;
      const serve = spawn([
        "audit",
        "serve",
        "--plan",
        plan,
        "--nats",
        tlsUrl,
        ...access,
        "--key",
        f.key,
        "--worker-pub",
        f.worker.pub,
        "--out",
        `${f.dir}/pool`,
        "--time",
        TIME,
        "--json",
      ], [`--allow-read=${REPO_ROOT},${f.dir},${pki}`, `--allow-write=${f.dir}/pool`, net]);
      const w = spawn(
        [
          "worker",
          "--nats",
          tlsUrl,
          ...access,
          "--log",
          f.log,
          "--key",
          f.worker.key,
          "--max-idle",
          "5",
        ],
        [`--allow-read=${REPO_ROOT},${f.dir},${pki}`, net],
      );
      const served = await serve.done();
      assert.equal(served.code, 0, served.stdout + served.stderr);
      assert.deepEqual(
        await Deno.readFile(`${f.dir}/pool/attestation.dsse.json`),
        await Deno.readFile(`${f.dir}/single/attestation.dsse.json`),
      );
      const worked = await w.done();
      assert.equal(worked.code, 0, worked.stderr);
      assert.match(worked.stdout, /^worker: 2 items done$/m);

      // A certificate of the same CA for another host: refused for the address --nats names.
      const other = await startNatsServer(
        `tls { cert_file: "${pki}/localhost.pem"\n key_file: "${pki}/localhost.key" }`,
      );
      try {
        const r = await runBitaudit([
          "worker",
          "--nats",
          other.url.replace("nats://", "tls://"),
          "--nats-ca",
          `${pki}/ca.pem`,
          "--log",
          f.log,
          "--key",
          f.worker.key,
          "--max-idle",
          "1",
        ], { perms: [`--allow-read`, `--allow-net=${other.hostPort}`] });
        assertCliCode(r.stderr, "NATS_CONNECT");
        assert.match(r.stderr, /127\.0\.0\.1/);
        assert.match(r.stderr, /altnames|does not match/i, r.stderr);
      } finally {
        await other.stop();
      }
    } finally {
      await nats.stop();
    }
  },
});

Deno.test("tls:// to a server without TLS is refused, not downgraded", async () => {
  const nats = await startNatsServer();
  const f = await makeAuditFixture({ records: 1, falsify: [] });
  try {
    const r = await runBitaudit([
      "worker",
      "--nats",
      nats.url.replace("nats://", "tls://"),
      "--log",
      f.log,
      "--key",
      f.worker.key,
      "--max-idle",
      "1",
    ], { perms: ["--allow-read", `--allow-net=${nats.hostPort}`] });
    assertCliCode(r.stderr, "NATS_CONNECT");
    assert.match(r.stderr, /tls/i);
  } finally {
    await nats.stop();
  }
});

Deno.test("a worker the runtime gives no network access is refused as PERMISSION, not as the server's fault", async () => {
  const f = await makeAuditFixture({ records: 1, falsify: [] });
  const r = await runBitaudit([
    ...["worker", "--nats", "nats://127.0.0.1:14222", "--log", f.log, "--key", f.worker.key],
    ...["--max-idle", "1"],
  ], { perms: ["--allow-read"] });
  assert.equal(r.code, 2, r.stderr);
  assertCliCode(r.stderr, "PERMISSION");
  assert.match(r.stderr, /^error \[PERMISSION\]: Cannot go on without a permission .*--allow-net/);
  assert.equal(r.stderr.trim().split("\n").length, 1, r.stderr);
});

Deno.test("a worker given a host name connects with --allow-net=<host:port>; another grant is PERMISSION naming it", async () => {
  const nats = await startNatsServer();
  const f = await makeAuditFixture({ records: 1, falsify: [] });
  try {
    const port = nats.hostPort.split(":")[1];
    const worker = (net: string) =>
      runBitaudit([
        ...["worker", "--nats", `nats://localhost:${port}`, "--log", f.log, "--key", f.worker.key],
        ...["--max-idle", "1"],
      ], { perms: ["--allow-read", `--allow-net=${net}`] });
    const granted = await worker(`localhost:${port}`);
    assert.equal(granted.code, 0, granted.stderr);
    assert.match(granted.stdout, /^worker: 0 items done$/m);
    const other = await worker(nats.hostPort);
    assert.equal(other.code, 2, other.stderr);
    assertCliCode(other.stderr, "PERMISSION");
    assert.match(other.stderr, new RegExp(`"localhost:${port}".*--allow-net`));
    assert.equal(other.stderr.trim().split("\n").length, 1, other.stderr);
  } finally {
    await nats.stop();
  }
});

Deno.test("NATS access files that are not what their option takes are refused before connecting", async () => {
  const dir = await tempDir({ prefix: "bitaudit-nats-files-" });
  const f = await makeAuditFixture({ records: 1, falsify: [] });
  const user = new TextDecoder().decode(nkeys.createUser().getSeed());
  // One character of the key changed: the seed's CRC-16 no longer matches.
  const badCrc = user.slice(0, 20) + (user[20] === "A" ? "B" : "A") + user.slice(21);
  const cases: [string, string[], string, RegExp][] = [
    [
      "a seed with a wrong checksum",
      ["--nats-creds", await writeSecret(`${dir}/crc.nk`, badCrc)],
      "BAD_NATS_ACCESS",
      /NKey seed/,
    ],
    [
      "a PEM key as credentials",
      ["--nats-creds", await writeSecret(`${dir}/k.nk`, await Deno.readTextFile(f.worker.key))],
      "BAD_NATS_ACCESS",
      /neither a NATS \.creds file/,
    ],
    [
      "an account seed",
      ["--nats-creds", await writeSecret(`${dir}/a.nk`, "SA" + user.slice(2))],
      "BAD_NATS_ACCESS",
      /neither/,
    ],
    [
      "credentials others may read",
      [
        "--nats-creds",
        await (async () => {
          await Deno.writeTextFile(`${dir}/open.nk`, user);
          await Deno.chmod(`${dir}/open.nk`, 0o644);
          return `${dir}/open.nk`;
        })(),
      ],
      "KEY_PERMISSIONS",
      /Cannot use key '.*open\.nk' \(--nats-creds\): mode 644 .*chmod 600/,
    ],
    [
      "missing credentials",
      ["--nats-creds", `${dir}/none.nk`],
      "INPUT_MISSING",
      /Cannot read key '.*none\.nk' \(--nats-creds\): no such file/,
    ],
    [
      "a CA file without a certificate",
      ["--nats-ca", f.worker.pub],
      "BAD_NATS_ACCESS",
      /no PEM CERTIFICATE/,
    ],
    [
      "a client certificate without its key",
      ["--nats-cert", f.worker.pub],
      "BAD_NATS_ACCESS",
      /both or neither/,
    ],
    ["a missing CA file", ["--nats-ca", `${dir}/none.pem`], "INPUT_MISSING", /none\.pem/],
    [
      "a CA file whose certificate does not parse",
      [
        "--nats-ca",
        await (async () => {
          const pem = "-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n";
          await Deno.writeTextFile(`${dir}/garbage.pem`, pem);
          return `${dir}/garbage.pem`;
        })(),
      ],
      "BAD_NATS_ACCESS",
      /certificate 1 of 1 does not parse/,
    ],
    ...(await (async (): Promise<[string, string[], string, RegExp][]> => {
      const pki = `${dir}/pki`;
      await Deno.mkdir(pki);
      await makePki(pki);
      return [[
        "a client key that is not the certificate's",
        ["--nats-cert", `${pki}/client.pem`, "--nats-cert-key", `${pki}/server.key`],
        "BAD_NATS_ACCESS",
        /not the key of the --nats-cert certificate/,
      ], [
        "a client key file that is not a key",
        [
          "--nats-cert",
          `${pki}/client.pem`,
          "--nats-cert-key",
          await writeSecret(
            `${pki}/junk.key`,
            "-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n",
          ),
        ],
        "BAD_NATS_ACCESS",
        /not a PEM private key/,
      ]];
    })()),
    [
      "an oversized CA file",
      [
        "--nats-ca",
        await (async () => {
          await Deno.writeTextFile(`${dir}/big.pem`, "x".repeat(70_000));
          return `${dir}/big.pem`;
        })(),
      ],
      "INPUT_TOO_LARGE",
      /limit/,
    ],
  ];
  for (const [what, extra, code, why] of cases) {
    // Port 1 on 127.0.0.1: nothing listens, so a connection attempt would say NATS_CONNECT.
    const r = await runBitaudit([
      "worker",
      "--nats",
      "nats://127.0.0.1:1",
      ...extra,
      "--log",
      f.log,
      "--key",
      f.worker.key,
    ]);
    assertCliCode(r.stderr, code as "BAD_NATS_ACCESS");
    assert.equal(r.code, 2, what);
    assert.match(r.stderr, why, `${what}: ${r.stderr}`);
  }
});
