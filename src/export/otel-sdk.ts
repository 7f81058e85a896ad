/**
 * Turns on OTLP/HTTP span export. The SDK packages are optional dependencies, imported only
 * here and only when asked for, so a run without tracing never loads them.
 */
import type { Tracer } from '@opentelemetry/api';
import { FlowgaugeError, InvalidArgumentError } from '../core/errors.js';

/** Options of `enableOtlpExport`. */
export interface OtlpExportOptions {
  /** OTLP/HTTP traces URL; default from `OTEL_EXPORTER_OTLP_*` or `http://localhost:4318/v1/traces`. */
  readonly endpoint?: string;
  /** The `service.name` resource attribute. */
  readonly serviceName: string;
  /** Export each span at once instead of in batches (tests, tiny runs). Default false. */
  readonly immediate?: boolean;
}

/** A tracer that exports, and how to flush and stop it. */
export interface OtlpExport {
  readonly tracer: Tracer;
  /** Exports what is buffered. */
  forceFlush(): Promise<void>;
  /** Flushes and stops exporting. */
  shutdown(): Promise<void>;
}

/** The optional modules, typed as installed. */
export interface OtelSdkModules {
  readonly sdk: typeof import('@opentelemetry/sdk-trace-base');
  readonly otlp: typeof import('@opentelemetry/exporter-trace-otlp-http');
  readonly resources: typeof import('@opentelemetry/resources');
}

/** Loads the optional modules; replaceable so tests can simulate their absence. */
export type OtelSdkLoader = () => Promise<OtelSdkModules>;

const defaultLoader: OtelSdkLoader = async () => ({
  sdk: await import('@opentelemetry/sdk-trace-base'),
  otlp: await import('@opentelemetry/exporter-trace-otlp-http'),
  resources: await import('@opentelemetry/resources'),
});

/** Starts OTLP/HTTP export; throws a `FlowgaugeError` (FG_CONFIG_INVALID) when the SDK is not installed. */
export async function enableOtlpExport(options: OtlpExportOptions, load: OtelSdkLoader = defaultLoader): Promise<OtlpExport> {
  if (options.serviceName === '') throw new InvalidArgumentError('OTLP export needs a non-empty serviceName');
  if (options.endpoint !== undefined && !/^https?:\/\/[^/]/.test(options.endpoint)) {
    throw new InvalidArgumentError('OTLP endpoint must be an http(s) URL such as http://127.0.0.1:4318/v1/traces');
  }
  let mods: OtelSdkModules;
  try {
    mods = await load();
  } catch (err) {
    throw new FlowgaugeError(
      'FG_CONFIG_INVALID',
      'OpenTelemetry export needs the optional packages @opentelemetry/sdk-trace-base and @opentelemetry/exporter-trace-otlp-http; ' +
        'install them with `npm install @opentelemetry/sdk-trace-base @opentelemetry/exporter-trace-otlp-http`',
      { cause: err },
    );
  }
  const exporter = new mods.otlp.OTLPTraceExporter(options.endpoint === undefined ? {} : { url: options.endpoint });
  const processor = options.immediate === true ? new mods.sdk.SimpleSpanProcessor(exporter) : new mods.sdk.BatchSpanProcessor(exporter);
  const provider = new mods.sdk.BasicTracerProvider({
    resource: mods.resources.resourceFromAttributes({ 'service.name': options.serviceName }),
    spanProcessors: [processor],
  });
  return {
    tracer: provider.getTracer('flowgauge'),
    forceFlush: () => provider.forceFlush(),
    shutdown: () => provider.shutdown(),
  };
}
