/** The syntax tree of a Jinja2 template, as jinja2/nodes.py shapes it (the nodes dbt's Jinja uses). */

/** Positional and keyword arguments, `*args` and `**kwargs`, of a call, filter or test. */
export interface Arguments {
  args: Expr[];
  kwargs: { name: string; value: Expr }[];
  dynArgs: Expr | null;
  dynKwargs: Expr | null;
}

export type Expr =
  | { kind: "const"; value: unknown; line: number }
  | { kind: "name"; name: string; line: number }
  | { kind: "list" | "tuple"; items: Expr[]; line: number }
  | { kind: "dict"; pairs: { key: Expr; value: Expr }[]; line: number }
  | { kind: "getattr"; node: Expr; attr: string; line: number }
  | { kind: "getitem"; node: Expr; arg: Expr; line: number }
  | { kind: "slice"; start: Expr | null; stop: Expr | null; step: Expr | null; line: number }
  | ({ kind: "call"; node: Expr; line: number } & Arguments)
  | ({ kind: "filter"; node: Expr | null; name: string; line: number } & Arguments)
  | ({ kind: "test"; node: Expr; name: string; line: number } & Arguments)
  | { kind: "binary"; op: BinaryOp; left: Expr; right: Expr; line: number }
  | { kind: "unary"; op: "not" | "neg" | "pos"; node: Expr; line: number }
  | { kind: "and" | "or"; left: Expr; right: Expr; line: number }
  | { kind: "compare"; first: Expr; ops: { op: CompareOp; value: Expr }[]; line: number }
  | { kind: "concat"; items: Expr[]; line: number }
  | { kind: "cond"; test: Expr; then: Expr; otherwise: Expr | null; line: number };

export type BinaryOp = "+" | "-" | "*" | "/" | "//" | "%" | "**";
export type CompareOp = "==" | "!=" | ">" | ">=" | "<" | "<=" | "in" | "notin";

/** Where `set` and `for` store: a name, a tuple of targets, or `ns.attr`. */
export type Target =
  | { kind: "name"; name: string; line: number }
  | { kind: "tuple"; items: Target[]; line: number }
  | { kind: "nsref"; name: string; attr: string; line: number };

export interface MacroDef {
  name: string;
  params: { name: string; default: Expr | null }[];
  body: Stmt[];
  /** Whether the body reads `caller`, `varargs` or `kwargs` (Jinja2 accepts extra arguments only then). */
  usesCaller: boolean;
  usesVarargs: boolean;
  usesKwargs: boolean;
  line: number;
}

export type Stmt =
  | { kind: "output"; nodes: (Expr | { kind: "data"; text: string; line: number })[]; line: number }
  | { kind: "if"; test: Expr; body: Stmt[]; otherwise: Stmt[]; line: number }
  | {
      kind: "for";
      target: Target;
      iter: Expr;
      filter: Expr | null;
      body: Stmt[];
      otherwise: Stmt[];
      recursive: boolean;
      line: number;
    }
  | { kind: "set"; target: Target; value: Expr; line: number }
  | { kind: "setblock"; target: Target; filter: Expr | null; body: Stmt[]; line: number }
  | { kind: "macro"; macro: MacroDef; line: number }
  | { kind: "callblock"; call: Expr & { kind: "call" }; macro: MacroDef; line: number }
  | { kind: "filterblock"; filter: Expr; body: Stmt[]; line: number }
  | { kind: "do"; expr: Expr; line: number }
  | { kind: "with"; targets: Target[]; values: Expr[]; body: Stmt[]; line: number }
  | { kind: "break" | "continue"; line: number };
