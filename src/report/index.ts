export * from './model.js';
export * from './metrics.js';
export * from './schema.js';
export * from './markdown.js';
export * from './summary.js';
export * from './format.js';
