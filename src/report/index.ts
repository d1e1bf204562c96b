import type { RunResult, ServiceLevel } from '../results/schema.js';
import type { WhatIfNote } from './answer-view.js';
import { renderCsv } from './csv.js';
import { renderHtml } from './html/template.js';
import { renderJson } from './json.js';
import { renderMarkdown } from './markdown.js';
import { renderText, TEXT_OPTION_KEYS, type TextOptions } from './text.js';
import type { ReportFormat } from '../output-formats.js';
import { checkOptions } from '../option-keys.js';

// Renderers are pure: (result, options) => string. The CLI and the runner decide where the string goes.
export { REPORT_FORMATS, type ReportFormat } from '../output-formats.js';
// slo: judge the answer by this service level instead of the result's own (docs/method.md "Service level");
// whatIf: a twin's predictions for the suggested changes, computed by the caller (src/answer/what-if.ts).
export interface AnswerOptions {
  slo?: ServiceLevel;
  whatIf?: WhatIfNote[];
}
export type ReportOptions = TextOptions & AnswerOptions;

export function renderReport(result: RunResult, format: ReportFormat, opts: ReportOptions = {}): string {
  checkOptions('renderReport', opts, TEXT_OPTION_KEYS);
  switch (format) {
    case 'html':
      return renderHtml(result, {}, opts);
    case 'md':
      return renderMarkdown(result, opts);
    case 'txt':
      return renderText(result, opts);
    case 'csv':
      return renderCsv(result, opts);
    case 'json':
      return renderJson(result, opts);
  }
}

export { renderCompare, COMPARE_FORMATS, type CompareFormat } from './compare.js';
