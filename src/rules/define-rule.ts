/**
 * A rule is one file exporting one definition: its code, kebab-case name,
 * command, severity, docs and messages are data (read by `slp rules`,
 * `slp explain`, the README table and the registry test); only `run` acts.
 */
import { formatNumber } from "../core/numbers.ts";
import type { Finding, FixKind, Severity } from "../schemas/finding.ts";

export type Command = "check" | "gate" | "compare";

export interface RuleDocs {
  /** One line: what the rule blocks or reports. */
  summary: string;
  /** Why it matters, in a sentence or two. */
  rationale: string;
  /** The framework sentence it enforces, with its section. */
  enforces: string;
}

/** A message is its text, or its text with a severity or a fix kind other than the rule's. */
export type MessageSpec = string | { text: string; severity?: Severity; fix?: FixKind };
export type MessageMap = Record<string, MessageSpec>;

/** Where a finding points. */
export interface FindingPlace {
  file: string;
  model: string;
  line?: number | null;
}

export type Reporter<M extends MessageMap> = (
  messageId: keyof M & string,
  place: FindingPlace,
  data?: Record<string, string | number>,
) => void;

export interface RuleDefinition<Ctx, M extends MessageMap> {
  code: string;
  name: string;
  command: Command;
  severity: Severity;
  /** Whose move a finding of this rule is (a message may say otherwise): what tcr's advice is built from. */
  fix: FixKind;
  docs: RuleDocs;
  messages: M;
  run(ctx: Ctx, report: Reporter<M>): void | Promise<void>;
}

export interface Rule<Ctx = unknown, M extends MessageMap = MessageMap> extends RuleDefinition<Ctx, M> {
  /** Runs the rule and returns its findings in the order it produced them. */
  findings(ctx: Ctx): Promise<Finding[]>;
  /** Every severity this rule can emit. */
  severities(): Severity[];
  /** Every fix kind this rule's findings can carry, the rule's own first. */
  fixes(): FixKind[];
}

/** Returns a definer bound to one command's context type. */
export function ruleDefiner<Ctx>(command: Command) {
  return function defineRule<const M extends MessageMap>(definition: Omit<RuleDefinition<Ctx, M>, "command">): Rule<Ctx, M> {
    const rule: RuleDefinition<Ctx, M> = { ...definition, command };
    return {
      ...rule,
      async findings(ctx: Ctx): Promise<Finding[]> {
        const out: Finding[] = [];
        await rule.run(ctx, (messageId, place, data = {}) => {
          const spec = rule.messages[messageId] as MessageSpec;
          const template = typeof spec === "string" ? spec : spec.text;
          out.push({
            severity: severityOf(rule, spec),
            rule: rule.code,
            name: rule.name,
            file: place.file,
            model: place.model,
            line: place.line ?? null,
            message: fillTemplate(template, data),
            fix: fixOf(rule, spec),
          });
        });
        return out;
      },
      severities(): Severity[] {
        const all = new Set<Severity>([rule.severity]);
        for (const spec of Object.values(rule.messages)) all.add(severityOf(rule, spec));
        return [...all].sort();
      },
      fixes(): FixKind[] {
        const all = new Set<FixKind>([rule.fix]);
        for (const spec of Object.values(rule.messages)) all.add(fixOf(rule, spec));
        return [...all];
      },
    };
  };
}

function severityOf(rule: { severity: Severity }, spec: MessageSpec): Severity {
  return typeof spec === "string" ? rule.severity : (spec.severity ?? rule.severity);
}

function fixOf(rule: { fix: FixKind }, spec: MessageSpec): FixKind {
  return typeof spec === "string" ? rule.fix : (spec.fix ?? rule.fix);
}

/** Each template split once at its placeholders: text, name, text, name, ..., text. */
const templateParts = new Map<string, string[]>();

/** `{name}` placeholders filled from data; numbers printed the way people write them. */
export function fillTemplate(template: string, data: Record<string, string | number>): string {
  let parts = templateParts.get(template);
  if (parts === undefined) {
    parts = template.split(/\{(\w+)\}/);
    templateParts.set(template, parts);
  }
  let text = parts[0] as string;
  for (let i = 1; i < parts.length; i += 2) {
    const key = parts[i] as string;
    if (!Object.hasOwn(data, key)) throw new Error(`message placeholder {${key}} has no value`);
    const value = data[key];
    text += (typeof value === "number" ? formatNumber(value) : String(value)) + (parts[i + 1] as string);
  }
  return text;
}

export type AnyRule = Rule<any, any>;
