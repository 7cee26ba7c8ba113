/** The output formats, by name. A task may add its own (unit adds junit). */
import type { Report } from "../core/report.ts";
import { renderJson } from "./json.ts";
import { renderJunit } from "./junit.ts";
import { renderText } from "./text.ts";

export interface Rendered {
  stdout: string;
  stderr: string;
  exitCode: number;
}

export type Renderer = (report: Report) => Rendered;

export const RENDERERS: Record<string, Renderer> = {
  text: renderText,
  json: renderJson,
  junit: renderJunit,
};
