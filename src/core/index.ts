export * from './clock.js';
export * from './codes.js';
export * from './errors.js';
export * from './ops.js';
export * from './tiers.js';
export * from './types.js';
export * from './units.js';
export * from './webhook-signature.js';
