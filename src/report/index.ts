import type { RunResult, ServiceLevel } from '../results/schema.js';
import { givenAnalysis, type Analysis } from '../answer/analysis.js';
import { renderCsv } from './csv.js';
import { renderHtml } from './html/template.js';
import { renderJson } from './json.js';
import { renderMarkdown } from './markdown.js';
import { renderText, TEXT_OPTION_KEYS, type TextOptions } from './text.js';
import type { ReportFormat } from '../output-formats.js';
import { checkOptions } from '../option-keys.js';
import { BenchError } from '../errors.js';

// Renderers are pure: (result, options) => string. The CLI and the runner decide where the string goes.
export { REPORT_FORMATS, type ReportFormat } from '../output-formats.js';
// slo: judge the answer by this service level instead of the result's own (docs/method.md "Service level");
// analysis: the answer with its what-ifs, computed once by the caller (src/answer/analysis.ts analysisOf), which
// holds its own level. Without one, the answer is judged here, without the what-if (that needs a twin fitted).
export interface AnswerOptions {
  slo?: ServiceLevel;
  analysis?: Analysis;
}
export type ReportOptions = TextOptions & AnswerOptions;
const REPORT_OPTION_KEYS = [...TEXT_OPTION_KEYS, 'analysis'];

export function renderReport(result: RunResult, format: ReportFormat, opts: ReportOptions = {}): string {
  checkOptions('renderReport', opts, REPORT_OPTION_KEYS, { whatIf: 'analysis (analysisOf(result, slo))' });
  if (opts.analysis && opts.slo)
    throw new BenchError('USAGE', 'renderReport: pass slo or analysis, not both.', {
      hint: 'The analysis holds the service level it was judged by: analysisOf(result, slo).',
    });
  const analysis = givenAnalysis(result, opts);
  const o = { ...opts, analysis };
  switch (format) {
    case 'html':
      return renderHtml(result, {}, o);
    case 'md':
      return renderMarkdown(result, o);
    case 'txt':
      return renderText(result, o);
    case 'csv':
      return renderCsv(result, analysis);
    case 'json':
      return renderJson(result, analysis);
  }
}

export { renderCompare, COMPARE_FORMATS, type CompareFormat } from './compare.js';
