// One home for how labels, numbers and durations read, in the live view and in every report.
export * from './numbers.js';
export * from './labels.js';
export * from './time.js';
export * from './wrap.js';
