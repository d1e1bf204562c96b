import type { RunResult } from '../results/schema.js';
import type { SweepFile } from '../results/sweep-schema.js';
import type { ReportFormat } from '../output-formats.js';
import type { PageOptions } from './html/page.js';
import { renderSweepHtml } from './sweep-html.js';
import { renderSweepCsv, renderSweepMd, sweepJson } from './sweep-md.js';
import { sweepModel, type SweepModel } from './sweep-model.js';
import { renderSweepText } from './sweep-text.js';
import type { TextOptions } from './text.js';

// The sweep report in every format `report` renders (docs/sweep.md "The report"); pure, as every renderer.
export function renderSweep(
  file: SweepFile,
  results: ReadonlyMap<string, RunResult>,
  format: ReportFormat,
  opts: TextOptions & { page?: PageOptions } = {},
): string {
  return renderSweepModel(sweepModel(file, results, { slo: opts.slo }), format, opts);
}

export function renderSweepModel(
  m: SweepModel,
  format: ReportFormat,
  opts: TextOptions & { page?: PageOptions } = {},
): string {
  switch (format) {
    case 'html':
      return renderSweepHtml(m, opts.page);
    case 'md':
      return renderSweepMd(m);
    case 'txt':
      return renderSweepText(m, opts);
    case 'csv':
      return renderSweepCsv(m);
    case 'json':
      return JSON.stringify(sweepJson(m), null, 2) + '\n';
  }
}
