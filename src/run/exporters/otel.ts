/**
 * OpenTelemetry: one span per request over OTLP/HTTP (the SDK is an optional dependency). The
 * endpoint and the resource are resolved once in the main thread, as plain data, so workers
 * export to the same URL under the same resource; each thread sends its own spans, as any other
 * process would. A bad endpoint or a missing SDK is bad input; an export that fails later is a warning.
 */
import { withProcessEnv } from '../../core/process-env.js';
import { createRequestTracer } from '../../export/tracing.js';
import { detectOtlpResource, enableOtlpExport, otlpTracesEndpoint } from '../../export/otel-sdk.js';
import type { OtlpExportOptions } from '../../export/index.js';
import { createTracingOutput } from '../outputs/tracing-output.js';
import type { Exporter } from './exporter.js';

/** Where spans go. */
export interface OtelWish {
  /**
   * The collector's base URL (`http://host:4318` → `/v1/traces`) or a full traces URL; '' for the
   * environment's `OTEL_EXPORTER_OTLP_(TRACES_)ENDPOINT`, else localhost:4318.
   */
  readonly endpoint: string;
  /** Where `OTEL_*` are read (default: the run's environment). */
  readonly env?: Readonly<Record<string, string | undefined>> | undefined;
}

/**
 * The traces URL as the OTLP exporter specification resolves it, and the resource the SDK's
 * environment detector finds (it reads `process.env`, so the run's environment is put there
 * while it looks).
 */
async function otlpOptionsOf(flag: string, env: Readonly<Record<string, string | undefined>>): Promise<OtlpExportOptions> {
  const endpoint = otlpTracesEndpoint(flag, env);
  const names = ['OTEL_SERVICE_NAME', 'OTEL_RESOURCE_ATTRIBUTES'] as const;
  // An unset name is set empty for the detection, which the SDK reads as unset.
  const vars = Object.fromEntries(names.map((n) => [n, env[n] ?? '']));
  const resourceAttributes = await withProcessEnv(vars, () => detectOtlpResource('flowgauge'));
  return { endpoint, serviceName: 'flowgauge', resourceAttributes };
}

/** The OpenTelemetry exporter. */
export const otelExporter: Exporter<'otel', OtelWish> = {
  name: 'otel',
  async start(wish, ctx) {
    const options = await otlpOptionsOf(wish.endpoint, wish.env ?? ctx.env);
    if (ctx.workers > 1) return { brief: options, close: async () => undefined };
    const otlp = await enableOtlpExport(options, undefined, (m) => ctx.warn.write(m));
    return { output: createTracingOutput(createRequestTracer(otlp.tracer)), close: () => otlp.shutdown() };
  },
  async inWorker(brief, warn) {
    const otlp = await enableOtlpExport(brief as OtlpExportOptions, undefined, (m) => warn.write(m));
    return { output: createTracingOutput(createRequestTracer(otlp.tracer)), close: () => otlp.shutdown() };
  },
};
