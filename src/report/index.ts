import type { RunResult } from '../results/schema.js';
import { renderCsv } from './csv.js';
import { renderHtml } from './html/template.js';
import { renderMarkdown } from './markdown.js';
import { renderText, type TextOptions } from './text.js';
import type { ReportFormat } from './formats.js';

// Renderers are pure: (result, options) => string. The CLI and the runner decide where the string goes.
export { REPORT_FORMATS, type ReportFormat } from './formats.js';
export type ReportOptions = TextOptions;

export function renderReport(result: RunResult, format: ReportFormat, opts: ReportOptions = {}): string {
  switch (format) {
    case 'html':
      return renderHtml(result);
    case 'md':
      return renderMarkdown(result);
    case 'txt':
      return renderText(result, opts);
    case 'csv':
      return renderCsv(result);
    case 'json':
      return JSON.stringify(result, null, 2) + '\n';
  }
}

export { renderCompare, COMPARE_FORMATS, type CompareFormat } from './compare.js';
