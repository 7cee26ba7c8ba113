/**
 * Spark's XXH64 as slp computes it (src/engine/spark-hash.ts), against the
 * constants of Spark's own XXH64Suite (seed 0 and 2654435761, the suite's
 * buffer) and the Spark-compatible seed-42 vectors of Apache DataFusion's
 * spark xxhash64 tests.
 */
import { describe, expect, test } from "bun:test";
import {
  SPARK_HASH_FUNCTIONS,
  SPARK_HASH_PREFIX,
  xxhash64Bytes,
  xxhash64Int,
  xxhash64Long,
  xxhash64String,
} from "../src/engine/spark-hash.ts";

const PRIME = 2654435761n;
const signed = (hex: bigint) => BigInt.asIntN(64, hex);

/** XXH64Suite's buffer: byte i is bits 24-31 of PRIME squared i times (as a Java long). */
function suiteBuffer(): Uint8Array {
  const buffer = new Uint8Array(101);
  let seed = PRIME;
  for (let i = 0; i < buffer.length; i++) {
    buffer[i] = Number((seed >> 24n) & 0xffn);
    seed = BigInt.asIntN(64, seed * seed);
  }
  return buffer;
}

describe("Spark XXH64", () => {
  test("XXH64Suite: known int, long and byte-array inputs", () => {
    const buffer = suiteBuffer();
    expect(xxhash64Int(0x4b1fff9e, 0n)).toBe(signed(0x9256e58aa397aef1n));
    expect(xxhash64Int(0x4b1fff9e, PRIME)).toBe(signed(0x9d5ffdfb928ab4bn));
    expect(xxhash64Long(signed(0xdd2f535e4b1fff9en), 0n)).toBe(signed(0xf74cb1451b32b8cfn));
    expect(xxhash64Long(signed(0xdd2f535e4b1fff9en), PRIME)).toBe(signed(0x9c44b77fbcc302c5n));
    expect(xxhash64Bytes(buffer.subarray(0, 4), 0n)).toBe(signed(0x9256e58aa397aef1n));
    expect(xxhash64Bytes(buffer.subarray(0, 14), 0n)).toBe(signed(0xcffa8db881bc3a3dn));
    expect(xxhash64Bytes(buffer.subarray(0, 14), PRIME)).toBe(signed(0x5b9611585efcc9cbn));
    expect(xxhash64Bytes(buffer, 0n)).toBe(signed(0x0eab543384f878adn));
    expect(xxhash64Bytes(buffer, PRIME)).toBe(signed(0xcaa65939306f1e21n));
  });

  test("seed 42: ints, longs and UTF-8 strings as Spark's xxhash64() gives them", () => {
    expect([1, 0, -1].map((value) => xxhash64Int(value, 42n))).toEqual([
      signed(0xa309b38455455929n),
      signed(0x3229fbc4681e48f3n),
      signed(0x1bfdda8861c06e45n),
    ]);
    expect([1n, 0n, -1n, 2n ** 63n - 1n, -(2n ** 63n)].map((value) => xxhash64Long(value, 42n))).toEqual([
      -7001672635703045582n,
      -5252525462095825812n,
      3858142552250413010n,
      -3246596055638297850n,
      -8619748838626508300n,
    ]);
    expect(["hello", "bar", "", "😁", "天地"].map((value) => xxhash64String(value, 42n))).toEqual([
      -4367754540140381902n,
      -1798770879548125814n,
      -7444071767201028348n,
      -6337236088984028203n,
      -235771157374669727n,
    ]);
  });

  test("Spark's documented example: xxhash64('Spark', array(123), 2), each hash the seed of the next", () => {
    const hash = xxhash64Int(2, xxhash64Int(123, xxhash64String("Spark", 42n)));
    expect(hash).toBe(5602566077635097486n);
    expect(xxhash64Int(123, xxhash64String("Spark", 42n))).not.toBe(hash);
  });
});

test("every Spark hash function's name starts with the prefix a query is searched for before they are registered", () => {
  const names = Object.keys(SPARK_HASH_FUNCTIONS);
  expect(names.length).toBeGreaterThan(0);
  expect(names.filter((name) => !name.startsWith(SPARK_HASH_PREFIX))).toEqual([]);
});
