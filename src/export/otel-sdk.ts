/**
 * Turns on OTLP/HTTP span export. The SDK packages are optional dependencies, imported only
 * here and only when asked for, so a run without tracing never loads them.
 *
 * The endpoint follows the OTLP exporter specification (`otlpTracesEndpoint`), the resource
 * comes from the SDK's own environment detector (`OTEL_SERVICE_NAME`,
 * `OTEL_RESOURCE_ATTRIBUTES`; `detectOtlpResource`), and an export that fails (endpoint down,
 * 404, 5xx, timeout) is said once through `onExportFailure`, never thrown: spans are a view of
 * the run, and losing them must not change its result.
 *
 * Nor may they tax it: each export is one bounded attempt (`exportTimeoutMs`, 0.9 s, the OTLP
 * exporter's timeout, its retries included), and `shutdown` waits for the last one at most 1 s,
 * then says how many spans were not delivered. A collector that is down or accepts
 * and never answers costs the end of a run at most a second, not the exporter's default 10 s of
 * retries.
 */
import type { Tracer } from '@opentelemetry/api';
import type { ReadableSpan, SpanExporter } from '@opentelemetry/sdk-trace-base';
import { urlWithoutSecrets } from '../api/index.js';
import { FlowgaugeError, InvalidArgumentError } from '../core/errors.js';

/** Attribute values a resource may carry (what crosses to worker threads: plain data). */
export type ResourceAttributeValue = string | number | boolean;

/** Options of `enableOtlpExport` (plain data: sent as is to worker threads). */
export interface OtlpExportOptions {
  /** The OTLP/HTTP traces URL, used as is (`otlpTracesEndpoint` resolves one); default `http://localhost:4318/v1/traces`. */
  readonly endpoint?: string;
  /** The `service.name` resource attribute, unless `resourceAttributes` (the environment) names one. */
  readonly serviceName: string;
  /** Resource attributes detected from the environment (`detectOtlpResource`); they win over `serviceName`. */
  readonly resourceAttributes?: Readonly<Record<string, ResourceAttributeValue>>;
  /** Export each span at once instead of in batches (tests, tiny runs). Default false. */
  readonly immediate?: boolean;
  /**
   * How long one export may take, in ms, retries included: after it the request is abandoned
   * and its spans counted as not delivered. Default 900.
   */
  readonly exportTimeoutMs?: number;
  /**
   * How long `shutdown` (and `forceFlush`) may wait for the last export, in ms. Default
   * `exportTimeoutMs` + 100 (1 s): the exporter abandons its attempt first, so nothing of it is
   * left holding the process.
   */
  readonly shutdownTimeoutMs?: number;
}

/** How long one export may take by default (retries included). */
export const DEFAULT_OTLP_EXPORT_TIMEOUT_MS = 900;

/** A tracer that exports, and how to flush and stop it. */
export interface OtlpExport {
  readonly tracer: Tracer;
  /** The traces URL spans go to (without credentials or query), as warnings name it. */
  readonly endpoint: string;
  /** Exports what is buffered; never rejects (a failure goes to `onExportFailure`). */
  forceFlush(): Promise<void>;
  /** Flushes and stops exporting, within `shutdownTimeoutMs`, then says what was not delivered; never rejects. */
  shutdown(): Promise<void>;
  /** Spans handed to the exporter and not delivered (failed, or abandoned at the shutdown's deadline). */
  undelivered(): number;
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

/** Where spans go when nothing says otherwise (the OTLP/HTTP default). */
export const DEFAULT_OTLP_TRACES_ENDPOINT = 'http://localhost:4318/v1/traces';

/** A base URL with the traces path appended, as the specification joins them. */
function appendTracesPath(base: string): string {
  const u = new URL(base);
  u.pathname = `${u.pathname.replace(/\/+$/, '')}/v1/traces`;
  return u.toString();
}

function checkHttpUrl(url: string, what: string): void {
  let u: URL | undefined;
  try {
    u = new URL(url);
  } catch {
    u = undefined;
  }
  if (u === undefined || (u.protocol !== 'http:' && u.protocol !== 'https:') || u.host === '') {
    throw new InvalidArgumentError(`${what} must be an http(s) URL such as http://127.0.0.1:4318 (a collector's base URL); got a value that is not`);
  }
}

/**
 * The OTLP/HTTP traces URL, as the OTLP exporter specification resolves it:
 * - `flag` (`--otel URL`): a base URL (no path, or `/`) gets `/v1/traces` appended; a URL with
 *   a path is used as is;
 * - else `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`, used as is;
 * - else `OTEL_EXPORTER_OTLP_ENDPOINT`, a base URL: `/v1/traces` appended to its path;
 * - else `http://localhost:4318/v1/traces`.
 * An empty flag means "from the environment". Throws `InvalidArgumentError` for a non-http(s) URL.
 */
export function otlpTracesEndpoint(flag: string | undefined, env: Readonly<Record<string, string | undefined>>): string {
  const set = (v: string | undefined): v is string => v !== undefined && v.trim() !== '';
  if (set(flag)) {
    checkHttpUrl(flag, '--otel');
    const u = new URL(flag);
    return u.pathname === '/' || u.pathname === '' ? appendTracesPath(flag) : flag;
  }
  const traces = env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT;
  if (set(traces)) {
    checkHttpUrl(traces.trim(), 'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT');
    return traces.trim();
  }
  const base = env.OTEL_EXPORTER_OTLP_ENDPOINT;
  if (set(base)) {
    checkHttpUrl(base.trim(), 'OTEL_EXPORTER_OTLP_ENDPOINT');
    return appendTracesPath(base.trim());
  }
  return DEFAULT_OTLP_TRACES_ENDPOINT;
}

/** A URL as a warning may show it: no credentials, no query. */
export function shownEndpoint(url: string): string {
  return urlWithoutSecrets(url)?.toString() ?? '(unparseable endpoint)';
}

async function loadSdk(load: OtelSdkLoader): Promise<OtelSdkModules> {
  try {
    return await load();
  } catch (err) {
    throw new FlowgaugeError(
      'FG_CONFIG_INVALID',
      'OpenTelemetry export needs the optional packages @opentelemetry/sdk-trace-base and @opentelemetry/exporter-trace-otlp-http; ' +
        'install them with `npm install @opentelemetry/sdk-trace-base @opentelemetry/exporter-trace-otlp-http`',
      { cause: err },
    );
  }
}

/**
 * The resource attributes the SDK's environment detector finds (`OTEL_RESOURCE_ATTRIBUTES`,
 * then `OTEL_SERVICE_NAME`, read from `process.env`), over `service.name = serviceName`.
 * Plain data, so worker threads export under the same resource.
 */
export async function detectOtlpResource(serviceName: string, load: OtelSdkLoader = defaultLoader): Promise<Record<string, ResourceAttributeValue>> {
  const { resources } = await loadSdk(load);
  const detected = resources.detectResources({ detectors: [resources.envDetector] });
  const merged = resources.resourceFromAttributes({ 'service.name': serviceName }).merge(detected);
  const out: Record<string, ResourceAttributeValue> = {};
  for (const [k, v] of Object.entries(merged.attributes)) {
    if (typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean') out[k] = v;
  }
  return out;
}

/** Why an export failed, in a few words (`HTTP 404 Not Found`, `connect ECONNREFUSED …`). */
function reasonOf(err: unknown): string {
  if (!(err instanceof Error)) return err === undefined ? 'export failed' : String(err);
  const code = (err as { code?: unknown }).code;
  const cause = (err as { cause?: unknown }).cause;
  const base = typeof code === 'number' ? `HTTP ${code}${err.message !== '' ? ` ${err.message}` : ''}` : err.message || err.name;
  return cause instanceof Error && cause.message !== '' && !base.includes(cause.message) ? `${base}: ${cause.message}` : base;
}

/** What a reporting exporter counted. */
interface ExportTally {
  /** Spans whose export failed. */
  lost: number;
  /** Spans handed to an export that has not finished. */
  pending: number;
}

/** Wraps an exporter so each failure is reported (the caller says it once) and counted, and none escapes as a rejection. */
function reportingExporter(inner: SpanExporter, failed: (err: unknown) => void, tally: ExportTally): SpanExporter {
  return {
    export(spans: ReadableSpan[], done) {
      tally.pending += spans.length;
      let settled = false;
      const finish = (result: Parameters<typeof done>[0]): void => {
        if (settled) return;
        settled = true;
        tally.pending -= spans.length;
        if (result.code !== 0) {
          tally.lost += spans.length;
          failed(result.error);
        }
        done(result);
      };
      try {
        inner.export(spans, finish);
      } catch (err) {
        finish({ code: 1, error: err instanceof Error ? err : new Error(String(err)) });
      }
    },
    shutdown: () => inner.shutdown().catch(failed),
    forceFlush: () => (inner.forceFlush?.() ?? Promise.resolve()).catch(failed),
  };
}

/**
 * Starts OTLP/HTTP export; throws a `FlowgaugeError` (FG_CONFIG_INVALID) when the SDK is not
 * installed. `onExportFailure` is told once, with the endpoint and the reason, when spans
 * could not be delivered; nothing this returns ever rejects.
 */
export async function enableOtlpExport(
  options: OtlpExportOptions,
  load: OtelSdkLoader = defaultLoader,
  onExportFailure: (message: string) => void = () => undefined,
): Promise<OtlpExport> {
  if (options.serviceName === '') throw new InvalidArgumentError('OTLP export needs a non-empty serviceName');
  if (options.endpoint !== undefined && !/^https?:\/\/[^/]/.test(options.endpoint)) {
    throw new InvalidArgumentError('OTLP endpoint must be an http(s) URL such as http://127.0.0.1:4318/v1/traces');
  }
  const url = options.endpoint ?? DEFAULT_OTLP_TRACES_ENDPOINT;
  const shown = shownEndpoint(url);
  const exportMs = options.exportTimeoutMs ?? DEFAULT_OTLP_EXPORT_TIMEOUT_MS;
  const deadlineMs = options.shutdownTimeoutMs ?? exportMs + 100;
  if (!(exportMs > 0 && Number.isFinite(exportMs)) || !(deadlineMs > 0 && Number.isFinite(deadlineMs))) {
    throw new InvalidArgumentError('OTLP export and shutdown timeouts must be positive numbers of ms');
  }
  const tally: ExportTally = { lost: 0, pending: 0 };
  let said = false;
  let reason: string | undefined;
  let closing = false;
  const warning = (why: string, count: string): string =>
    `flowgauge: warning: spans could not be exported to ${shown} (${why})${count}; the run's result does not depend on them\n`;
  const failed = (err: unknown): void => {
    reason ??= reasonOf(err);
    // At the end the count is known: said then, with it, in one line.
    if (said || closing) return;
    said = true;
    onExportFailure(warning(reasonOf(err), ''));
  };
  const mods = await loadSdk(load);
  // One bounded attempt: the exporter's timeout covers its retries (none fit in 1 s after a refusal).
  const exporter = reportingExporter(new mods.otlp.OTLPTraceExporter({ url, timeoutMillis: exportMs }), failed, tally);
  const processor =
    options.immediate === true
      ? new mods.sdk.SimpleSpanProcessor(exporter)
      : // Its own timer (not unref'd) must never outlive the exporter's bound.
        new mods.sdk.BatchSpanProcessor(exporter, { exportTimeoutMillis: exportMs * 2 });
  const provider = new mods.sdk.BasicTracerProvider({
    resource: mods.resources.resourceFromAttributes({ 'service.name': options.serviceName, ...options.resourceAttributes }),
    spanProcessors: [processor],
  });
  /** Waits for `p` at most `deadlineMs`; true when it finished in time. */
  const bounded = async (p: Promise<void>): Promise<boolean> => {
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<boolean>((resolve) => {
      timer = setTimeout(() => resolve(false), deadlineMs);
      timer.unref();
    });
    try {
      return await Promise.race([p.then(() => true, (err: unknown) => (failed(err), true)), late]);
    } finally {
      clearTimeout(timer);
    }
  };
  let shutdownOnce: Promise<void> | undefined;
  const shutdown = async (): Promise<void> => {
    closing = true;
    const inTime = await bounded(provider.shutdown());
    // Spans still in an export at the deadline are abandoned with it.
    const lost = tally.lost + (inTime ? 0 : tally.pending);
    if (lost === 0) return;
    const why = inTime ? (reason ?? 'export failed') : `no answer within ${deadlineMs} ms`;
    const count = `: ${lost} span${lost === 1 ? '' : 's'} not delivered`;
    if (!said) onExportFailure(warning(why, count));
    else onExportFailure(`flowgauge: warning: ${lost} span${lost === 1 ? ' was' : 's were'} not delivered to ${shown} in all\n`);
    said = true;
  };
  return {
    tracer: provider.getTracer('flowgauge'),
    endpoint: shown,
    forceFlush: async () => {
      if (!(await bounded(provider.forceFlush()))) failed(new Error(`the export did not finish within ${deadlineMs} ms`));
    },
    shutdown: () => (shutdownOnce ??= shutdown()),
    undelivered: () => tally.lost,
  };
}
