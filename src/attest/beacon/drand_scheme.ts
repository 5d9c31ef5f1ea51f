/**
 * The drand signature schemes this verifier checks, as data: which group carries the public key
 * and the signature, the hash-to-curve domain separation tag, and whether the signed message
 * chains the previous signature.
 *
 * Source: github.com/drand/drand `crypto/schemes.go` (`NewPedersenBLSChained`,
 * `NewPedersenBLSUnchainedG1`): the digest is `SHA-256(previous signature || u64be(round))` for
 * the chained scheme and `SHA-256(u64be(round))` for the unchained one; both hash to the
 * signature group with the RFC 9380 default tag of that group (`..._RO_NUL_`).
 *
 * @module
 */

/** Parameters of one drand scheme. */
export interface DrandScheme {
  /** Scheme id as drand names it. */
  readonly id: string;
  /** Group of the signatures; the public key is on the other group. */
  readonly signatureGroup: "G1" | "G2";
  /** Compressed signature length in bytes (48 on G1, 96 on G2). */
  readonly signatureBytes: number;
  /** Compressed public-key length in bytes. */
  readonly publicKeyBytes: number;
  /** Hash-to-curve domain separation tag (RFC 9380). */
  readonly dst: string;
  /** Whether the message includes the previous round's signature. */
  readonly chained: boolean;
}

/** The schemes drand's League of Entropy mainnet runs: `default` and `quicknet`. */
export const DRAND_SCHEMES: Readonly<Record<string, DrandScheme>> = Object.freeze({
  "pedersen-bls-chained": Object.freeze({
    id: "pedersen-bls-chained",
    signatureGroup: "G2",
    signatureBytes: 96,
    publicKeyBytes: 48,
    dst: "BLS_SIG_BLS12381G2_XMD:SHA-256_SSWU_RO_NUL_",
    chained: true,
  }),
  "bls-unchained-g1-rfc9380": Object.freeze({
    id: "bls-unchained-g1-rfc9380",
    signatureGroup: "G1",
    signatureBytes: 48,
    publicKeyBytes: 96,
    dst: "BLS_SIG_BLS12381G1_XMD:SHA-256_SSWU_RO_NUL_",
    chained: false,
  }),
});
