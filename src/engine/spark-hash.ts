/**
 * Spark's xxhash64() on DuckDB: scalar functions that each hash one value of
 * one Spark type into a running seed, the way Spark's XxHash64 expression
 * (sql/catalyst expressions/hash.scala, XXH64.java) folds its arguments. The
 * translation (src/sql/dialect/spark-hash.ts) nests them, one per argument,
 * from Spark's seed 42, so `xxhash64(a, b)` is
 * `__slp_xxhash64_<b's type>(b, __slp_xxhash64_<a's type>(a, 42))`.
 *
 * XXH64 itself is Bun's built-in Bun.hash.xxHash64 (the reference algorithm,
 * which Spark's XXH64.java is for every length on a little-endian machine):
 * no package to load, nothing to read, the same in the compiled binary. The
 * functions only compute: no IO, and each value's work is bounded by its size.
 */
import type { DuckDBConnection } from "@duckdb/node-api";

/** Spark's seed for xxhash64(). */
export const SPARK_XXHASH64_SEED = 42n;

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
type Fold = (value: unknown, seed: bigint) => bigint;

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

/** The DuckDB type of each function's value, by name; the function for each Spark type slp hashes. */
const FUNCTIONS = {
  __slp_xxhash64_int: { type: "BIGINT", fold: int },
  __slp_xxhash64_long: { type: "BIGINT", fold: long },
  __slp_xxhash64_string: { type: "VARCHAR", fold: string },
  __slp_xxhash64_int_array: { type: "INTEGER[]", fold: elements(int) },
  __slp_xxhash64_string_array: { type: "VARCHAR[]", fold: elements(string) },
} as const;

export type SparkHashFunction = keyof typeof FUNCTIONS;

/**
 * Registers the functions on a connection (DuckDB keeps them in its catalog,
 * so every connection of the database has them). A NULL value leaves the
 * seed unchanged, as Spark skips a NULL argument.
 */
export function registerSparkHash(connection: DuckDBConnection, library: typeof import("@duckdb/node-api")): void {
  const types = {
    BIGINT: library.BIGINT,
    VARCHAR: library.VARCHAR,
    "INTEGER[]": library.LIST(library.INTEGER),
    "VARCHAR[]": library.LIST(library.VARCHAR),
  };
  for (const [name, { type, fold }] of Object.entries(FUNCTIONS)) {
    connection.registerScalarFunction(
      library.DuckDBScalarFunction.create({
        name,
        returnType: library.BIGINT,
        parameterTypes: [types[type], library.BIGINT],
        // NULLs reach the function (a NULL value keeps the seed) instead of making the result NULL.
        specialHandling: true,
        mainFunction: (info, input, output) => {
          const values = input.getColumnVector(0);
          const seeds = input.getColumnVector(1);
          try {
            for (let row = 0; row < input.rowCount; row++) {
              const value = values.getItem(row);
              const seed = seeds.getItem(row) as bigint | null;
              if (seed === null) throw new Error(`${name}: a NULL seed`);
              output.setItem(row, value === null ? seed : fold(value, seed));
            }
            output.flush();
          } catch (error) {
            info.setError(error instanceof Error ? error.message : String(error));
          }
        },
      }),
    );
  }
}
