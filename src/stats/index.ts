export * from './sorted.js';
export * from './window.js';
export * from './waits.js';
