export * from './options.js';
export * from './schema.js';
export * from './suggest.js';
export * from './resolve.js';
export * from './stored.js';
export * from './docs-table.js';
