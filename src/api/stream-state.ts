/**
 * What one stream has shown so far: timing, output, usage, run id, error events and contract
 * violations. Fed one timed event at a time; kept as plain mutable fields because it sits in
 * the per-token path.
 */
import type { ContractViolation, StreamTiming } from '../core/types.js';
import type { StreamSummary, TimedStreamEvent } from './result.js';
import { endEventSchema, startEventSchema } from './schemas.js';
import type { Usage } from './types.js';
import { describeType, isJsonObject, violationsOf, type Redact } from './validate.js';

/** Accumulates the events of one stream. */
export class StreamState {
  firstByteNs: number | undefined = undefined;
  startEventNs: number | undefined = undefined;
  firstTokenNs: number | undefined = undefined;
  lastTokenNs: number | undefined = undefined;
  endEventNs: number | undefined = undefined;
  tokens = 0;
  readonly itlNs: number[] = [];
  unknownEvents = 0;
  malformedEvents = 0;
  runId: string | undefined = undefined;
  output = '';
  usage: Usage | undefined = undefined;
  /** Data of the first `error` event, when one came. */
  errorEvent: Record<string, unknown> | undefined = undefined;
  readonly violations: ContractViolation[] = [];

  constructor(
    private readonly validate: boolean,
    private readonly redact: Redact,
  ) {}

  /** Notes the arrival of a body chunk. */
  chunk(atNs: number): void {
    if (this.firstByteNs === undefined) this.firstByteNs = atNs;
  }

  /** Takes one decoded event. */
  add(e: TimedStreamEvent): void {
    switch (e.type) {
      case 'token':
        this.token(e.data as Record<string, unknown>, e.atNs);
        return;
      case 'start':
        if (this.startEventNs !== undefined) return;
        this.startEventNs = e.atNs;
        this.started(e.data as Record<string, unknown>);
        return;
      case 'end':
        if (this.endEventNs !== undefined) return;
        this.endEventNs = e.atNs;
        this.ended(e.data as Record<string, unknown>);
        return;
      case 'unknown':
        this.unknownEvents++;
        if (e.rawType === 'error' && this.errorEvent === undefined) this.errorEvent = e.data as Record<string, unknown>;
        return;
      case 'malformed':
        this.malformedEvents++;
        return;
    }
  }

  private token(data: Record<string, unknown>, atNs: number): void {
    if (this.lastTokenNs === undefined) this.firstTokenNs = atNs;
    else this.itlNs.push(atNs - this.lastTokenNs);
    this.lastTokenNs = atNs;
    this.tokens++;
    const content = data.content;
    if (typeof content === 'string') this.output += content;
    else if (this.validate) this.violate('token.content', 'string', describeType(content));
    if (this.validate && this.startEventNs === undefined) this.violate('start', 'present before token', 'missing');
  }

  private started(data: Record<string, unknown>): void {
    if (typeof data.run_id === 'string') this.runId = data.run_id;
    if (this.validate) this.check(startEventSchema, data, 'start.');
  }

  private ended(data: Record<string, unknown>): void {
    if (typeof data.run_id === 'string') {
      if (this.validate && this.runId !== undefined && data.run_id !== this.runId) {
        this.violate('end.run_id', 'start.run_id', this.redact(JSON.stringify(data.run_id)));
      }
      this.runId ??= data.run_id;
    }
    const usage = data.usage;
    if (isJsonObject(usage)) this.usage = usage as unknown as Usage;
    if (this.validate) {
      if (this.startEventNs === undefined) this.violate('start', 'present before end', 'missing');
      this.check(endEventSchema, data, 'end.');
    }
  }

  private check(schema: typeof startEventSchema | typeof endEventSchema, data: unknown, prefix: string): void {
    for (const v of violationsOf('stream', schema, data, this.redact, prefix)) this.violate(v.path, v.expected, v.got);
  }

  /** Records a violation once per path and stream, so a bad token field does not repeat per token. */
  violate(path: string, expected: string, got: string): void {
    // The list stays tiny (one entry per path), so a scan beats a Set allocated per stream.
    for (const v of this.violations) if (v.path === path) return;
    this.violations.push({ op: 'stream', path, expected, got });
  }

  /** The timing seen so far (complete when an `end` event arrived). */
  timing(): StreamTiming {
    const completion = this.usage?.completion_tokens;
    return {
      firstByteNs: this.firstByteNs,
      startEventNs: this.startEventNs,
      firstTokenNs: this.firstTokenNs,
      lastTokenNs: this.lastTokenNs,
      endEventNs: this.endEventNs,
      tokens: this.tokens,
      itlNs: this.itlNs,
      usageCompletionTokens: Number.isInteger(completion) ? completion : undefined,
      complete: this.endEventNs !== undefined,
      unknownEvents: this.unknownEvents,
      malformedEvents: this.malformedEvents,
    };
  }

  /** The summary of a completed stream. */
  summary(timing: StreamTiming): StreamSummary {
    return { runId: this.runId, output: this.output, usage: this.usage, timing };
  }
}
