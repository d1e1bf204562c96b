export * from './contexts.js';
export * from './capacity.js';
export * from './plan.js';
export * from './estimate.js';
