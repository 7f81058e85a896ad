/** The I/O shells at the run's edge: Prometheus metrics (registry, /metrics server, Pushgateway), OpenTelemetry spans, the live dashboard and the webhook receiver. */
export * from './run-metrics.js';
export * from './probe-metrics.js';
export * from './metrics-server.js';
export * from './pushgateway.js';
export * from './tracing.js';
export * from './otel-sdk.js';
export * from './dashboard-server.js';
export * from './metrics-aggregate.js';
export * from './probe-endpoint.js';
export * from './webhook-receiver.js';
