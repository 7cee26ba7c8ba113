/** dbt's `return()`: leaves the macro being run with a value (dbt's MacroReturn), caught by the macro's caller. */

/** Thrown by `{{ return(x) }}`; not an Error, so nothing reports it as one. */
export class MacroReturn {
  constructor(readonly value: unknown) {}
}

export function macroReturn(value: unknown): never {
  throw new MacroReturn(value);
}
