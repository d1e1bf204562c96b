// The formats each command renders, apart from the renderers so the option table can name them as choices.
export const REPORT_FORMATS = ['html', 'md', 'txt', 'csv', 'json'] as const;
export type ReportFormat = (typeof REPORT_FORMATS)[number];
export const COMPARE_FORMATS = ['txt', 'md', 'html'] as const;
export type CompareFormat = (typeof COMPARE_FORMATS)[number];
