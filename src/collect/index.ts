export * from './histogram.js';
export * from './collectors.js';
export * from './op-stats.js';
export * from './slices.js';
export * from './stream-collector.js';
export * from './rate-limit-analyser.js';
export * from './rate-limit-headers.js';
export * from './reset-semantics.js';
export * from './contract-violations.js';
export * from './notification-matcher.js';
export * from './async-runs.js';
export * from './iteration-stats.js';
export * from './prompt-length.js';
export * from './rate-limit-tenants.js';
export {
  DEFAULT_WEBHOOK_MAX_BODY,
  WEBHOOK_REJECT_REASONS,
  startWebhookReceiver,
  type ReceivedDelivery,
  type WebhookReceiver,
  type WebhookReceiverOptions,
  type WebhookReceiverStats,
  type WebhookRejectReason,
} from './webhook-receiver.js';
