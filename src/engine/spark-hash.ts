/**
 * Spark's xxhash64() on DuckDB: what slp's scalar functions compute, each
 * hashing one value of one Spark type into a running seed, the way Spark's
 * XxHash64 expression (sql/catalyst expressions/hash.scala, XXH64.java) folds
 * its arguments; duckdb.ts registers them. The translation
 * (src/sql/dialect/spark-hash.ts) nests them, one per argument, from Spark's
 * seed 42, so `xxhash64(a, b)` is
 * `__slp_xxhash64_<b's type>(b, __slp_xxhash64_<a's type>(a, 42))`.
 *
 * XXH64 itself is Bun's built-in Bun.hash.xxHash64 (the reference algorithm,
 * which Spark's XXH64.java is for every length on a little-endian machine):
 * no package to load, nothing to read, the same in the compiled binary.
 */
const utf8 = new TextEncoder();

/** XXH64 of the bytes from a signed 64-bit seed, as Spark's signed long. */
export function xxhash64Bytes(bytes: Uint8Array, seed: bigint): bigint {
  return BigInt.asIntN(64, Bun.hash.xxHash64(bytes, BigInt.asUintN(64, seed)));
}

/** Spark's XXH64.hashInt: the int's 4 bytes, little-endian (IntegerType, ShortType, ByteType, DateType, BooleanType as 1/0). */
export function xxhash64Int(value: number, seed: bigint): bigint {
  const bytes = new Uint8Array(4);
  new DataView(bytes.buffer).setInt32(0, value, true);
  return xxhash64Bytes(bytes, seed);
}

/** Spark's XXH64.hashLong: the long's 8 bytes, little-endian (LongType). */
export function xxhash64Long(value: bigint, seed: bigint): bigint {
  const bytes = new Uint8Array(8);
  new DataView(bytes.buffer).setBigInt64(0, value, true);
  return xxhash64Bytes(bytes, seed);
}

/** Spark's hash of a StringType value (binary collation): its UTF-8 bytes. */
export function xxhash64String(value: string, seed: bigint): bigint {
  return xxhash64Bytes(utf8.encode(value), seed);
}

/** One value's hash into the seed, by the Spark type slp translated its argument as. */
export type Fold = (value: unknown, seed: bigint) => bigint;

const INT_MIN = -(2n ** 31n);
const INT_MAX = 2n ** 31n - 1n;
/**
 * An INT arrives as a BIGINT (DuckDB's row_number() is one where Spark's is an
 * INT); one past an INT's range is no Spark INT, and an error, never a guess.
 */
const int: Fold = (value, seed) => {
  const whole = BigInt(value as number | bigint);
  if (whole < INT_MIN || whole > INT_MAX) throw new Error(`xxhash64(): ${whole} is past a Spark INT's range`);
  return xxhash64Int(Number(whole), seed);
};
const long: Fold = (value, seed) => xxhash64Long(value as bigint, seed);
const string: Fold = (value, seed) => xxhash64String(value as string, seed);
/** An array's elements one after another, each hash the seed of the next; a NULL element leaves the seed (hash.scala). */
const elements =
  (element: Fold): Fold =>
  (value, seed) => {
    let hash = seed;
    for (const item of (value as { items: readonly unknown[] }).items) if (item !== null) hash = element(item, hash);
    return hash;
  };

/** What every one of their names starts with: SQL that holds it may call one. */
export const SPARK_HASH_PREFIX = "__slp_xxhash64_";

/**
 * slp's functions by name: the DuckDB type of the value each takes (with a
 * BIGINT seed, returning the BIGINT hash), and how it folds the value in.
 * duckdb.ts registers them; a NULL value leaves the seed unchanged, as Spark
 * skips a NULL argument.
 */
export const SPARK_HASH_FUNCTIONS: Record<string, { value: "BIGINT" | "VARCHAR" | "BIGINT[]" | "VARCHAR[]"; fold: Fold }> = {
  __slp_xxhash64_int: { value: "BIGINT", fold: int },
  __slp_xxhash64_long: { value: "BIGINT", fold: long },
  __slp_xxhash64_string: { value: "VARCHAR", fold: string },
  __slp_xxhash64_int_array: { value: "BIGINT[]", fold: elements(int) },
  __slp_xxhash64_string_array: { value: "VARCHAR[]", fold: elements(string) },
};

/** One row: the value folded into the seed, or the seed when the value is NULL. */
export function foldValue(fold: Fold, value: unknown, seed: bigint): bigint {
  return value === null ? seed : fold(value, seed);
}
