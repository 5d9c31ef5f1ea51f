/**
 * A local RFC 3161 TSA run by `openssl ts` (Debian's OpenSSL): a test CA, a TSA certificate with
 * the critical timeStamping key usage, an expired one (notAfter a day before it was issued), and a
 * function that stamps bytes with either. The test command installs `openssl` where it is missing
 * (tools/ensure_debian_tools.sh), so no test is skipped for lack of it.
 */
import { tempDir } from "../../_temp.ts";

/** A running local TSA. */
export interface LocalTsa {
  /** Folder holding the keys, certificates and config. */
  readonly dir: string;
  /** DER of the CA certificate (the trust anchor to pin). */
  readonly caDer: Uint8Array;
  /** PEM of the CA certificate. */
  readonly caPem: string;
  /** DER of the (valid) TSA signer certificate. */
  readonly tsaDer: Uint8Array;
  /**
   * Stamps `message` (SHA-256 imprint); `expired` signs with the expired certificate; `certReq`
   * false asks for a token without certificates (RFC 3161 §2.4.1).
   */
  stamp(
    message: Uint8Array,
    o?: { expired?: boolean; response?: boolean; certReq?: boolean },
  ): Promise<Uint8Array>;
}

async function _run(dir: string, args: string[]): Promise<void> {
  const r = await new Deno.Command("openssl", { args, cwd: dir, stdout: "null", stderr: "piped" })
    .output();
  if (!r.success) throw new Error(`openssl ${args[0]}: ${new TextDecoder().decode(r.stderr)}`);
}

/**
 * Creates a local TSA in a temporary folder (removed, keys included, when the test module ends).
 *
 * @param name CA common name (distinct CAs do not trust each other)
 */
export async function localTsa(name = "bitaudit test TSA CA"): Promise<LocalTsa> {
  const dir = await tempDir({ prefix: "bitaudit-tsa-" });
  await Deno.writeTextFile(
    `${dir}/ext.cnf`,
    "extendedKeyUsage = critical,timeStamping\nkeyUsage = critical,digitalSignature\n",
  );
  const tsaConfig = (cert: string) =>
    [
      "[ tsa ]",
      "default_tsa = tsa1",
      "[ tsa1 ]",
      "serial = ./serial",
      "crypto_device = builtin",
      `signer_cert = ./${cert}`,
      "certs = ./ca.crt",
      "signer_key = ./tsa.key",
      "signer_digest = sha256",
      "default_policy = 1.2.3.4.1",
      "other_policies = 1.2.3.4.2",
      "digests = sha256",
      "accuracy = secs:1",
      "ordering = no",
      "tsa_name = no",
      "ess_cert_id_chain = no",
      "ess_cert_id_alg = sha256",
      "",
    ].join("\n");
  await Deno.writeTextFile(`${dir}/valid.cnf`, tsaConfig("tsa.crt"));
  await Deno.writeTextFile(`${dir}/expired.cnf`, tsaConfig("expired.crt"));
  await Deno.writeTextFile(`${dir}/serial`, "01\n");
  const ec = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes"];
  await _run(dir, [
    "req",
    "-x509",
    ...ec,
    "-keyout",
    "ca.key",
    "-out",
    "ca.crt",
    "-subj",
    `/CN=${name}`,
    "-days",
    "3650",
  ]);
  await _run(dir, [
    "req",
    "-new",
    ...ec,
    "-keyout",
    "tsa.key",
    "-out",
    "tsa.csr",
    "-subj",
    "/CN=bitaudit test TSA",
  ]);
  const sign = (out: string, days: string) =>
    _run(dir, [
      "x509",
      "-req",
      "-in",
      "tsa.csr",
      "-CA",
      "ca.crt",
      "-CAkey",
      "ca.key",
      "-CAcreateserial",
      "-out",
      out,
      "-days",
      days,
      "-extfile",
      "ext.cnf",
    ]);
  await sign("tsa.crt", "365");
  await sign("expired.crt", "-1");
  const caPem = await Deno.readTextFile(`${dir}/ca.crt`);
  const pemDer = (pem: string) =>
    Uint8Array.from(
      atob(pem.replace(/-----[^-]+-----/g, "").replace(/\s/g, "")),
      (c) => c.charCodeAt(0),
    );
  const caDer = pemDer(caPem);
  const tsaDer = pemDer(await Deno.readTextFile(`${dir}/tsa.crt`));
  let n = 0;
  return {
    dir,
    caDer,
    caPem,
    tsaDer,
    async stamp(message, o = {}) {
      const i = n++;
      await Deno.writeFile(`${dir}/msg-${i}.bin`, message);
      await _run(dir, [
        "ts",
        "-query",
        "-data",
        `msg-${i}.bin`,
        "-sha256",
        ...(o.certReq === false ? [] : ["-cert"]),
        "-out",
        `q-${i}.tsq`,
      ]);
      await _run(dir, [
        "ts",
        "-reply",
        "-config",
        o.expired ? "expired.cnf" : "valid.cnf",
        "-queryfile",
        `q-${i}.tsq`,
        ...(o.response ? [] : ["-token_out"]),
        "-out",
        `t-${i}.der`,
      ]);
      return await Deno.readFile(`${dir}/t-${i}.der`);
    },
  };
}
