/** A pool of resources lent to the tasks one caller runs (gate --verify-commits runs unit at every commit), disposed of together. */
import type { SharedResources } from "./define-task.ts";

export class ResourcePool implements SharedResources {
  readonly #resources = new Map<string, { value: unknown; dispose: (resource: unknown) => void }>();

  get<T>(key: string, make: () => T, dispose: (resource: T) => void): T {
    let entry = this.#resources.get(key);
    if (!entry) {
      entry = { value: make(), dispose: dispose as (resource: unknown) => void };
      this.#resources.set(key, entry);
    }
    return entry.value as T;
  }

  close(): void {
    for (const { value, dispose } of this.#resources.values()) dispose(value);
    this.#resources.clear();
  }
}
