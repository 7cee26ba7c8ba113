/**
 * target/catalog.json (what `dbt docs generate` saw in the warehouse): every
 * built relation's columns, in order, with the warehouse's own type names.
 * A node may take its columns from it only while the catalog is not older
 * than the files the node is built from; a catalog that cannot be parsed is
 * not used at all.
 */
import { statSync } from "node:fs";
import { join } from "node:path";
import { isMapping } from "../../core/values.ts";
import type { WorkTree } from "../files/source.ts";

export const CATALOG_FILE = "target/catalog.json";

export interface CatalogColumn {
  name: string;
  /** The warehouse's type name, as the adapter reports it. */
  type: string;
}

export interface Catalog {
  /** When dbt wrote it (ms since the epoch). */
  written: number;
  /** Columns of each relation by dbt unique id (`model.shop.stg_orders`, `source.shop.raw.orders`), in column order. */
  columns: Map<string, CatalogColumn[]>;
}

/** The project's catalog, or null when it has none or it cannot be read. */
export function readCatalog(tree: WorkTree): Catalog | null {
  let written: number;
  try {
    written = statSync(join(tree.dir, CATALOG_FILE)).mtimeMs;
  } catch {
    return null;
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(tree.readText(CATALOG_FILE));
  } catch {
    return null;
  }
  if (!isMapping(parsed)) return null;
  const columns = new Map<string, CatalogColumn[]>();
  for (const section of [parsed.nodes, parsed.sources]) {
    if (!isMapping(section)) continue;
    for (const [id, entry] of Object.entries(section)) {
      if (!isMapping(entry) || !isMapping(entry.columns)) continue;
      const list = Object.values(entry.columns)
        .filter(isMapping)
        .filter((column) => typeof column.name === "string" && typeof column.type === "string")
        .map((column) => ({
          name: column.name as string,
          type: column.type as string,
          index: typeof column.index === "number" ? column.index : 0,
        }))
        .sort((a, b) => a.index - b.index);
      if (list.length > 0)
        columns.set(
          id,
          list.map(({ name, type }) => ({ name, type })),
        );
    }
  }
  return { written, columns };
}
