/**
 * The SSE writer of a streaming run: `start`, then each `token` written by its own
 * `res.write` at its planned time on the service clock, then `end` when the run completes
 * (or an `error` event when it fails). Faults may stall it or cut it short without `end`.
 */
import type { TimerHandle } from '../core/clock.js';
import { writeStreamHead, type RequestContext } from './http.js';
import type { RunRecord } from './runs.js';
import type { ServiceState } from './state.js';

class StreamWriter {
  i = 0;
  timer: TimerHandle | undefined = undefined;
  done = false;
  readonly tick = (): void => this.pump();

  constructor(
    readonly state: ServiceState,
    readonly ctx: RequestContext,
    readonly run: RunRecord,
    // Its own references: the run drops its times when it finishes, and keeps no text.
    readonly tokens: readonly string[],
    readonly timesNs: readonly number[],
    readonly truncateAt: number,
    readonly eol: string,
  ) {}

  send(event: Record<string, unknown>): void {
    this.ctx.res.write(`data: ${JSON.stringify(event)}${this.eol}${this.eol}`);
  }

  comment(text: string): void {
    if (this.state.opts.quirks.sseComments) this.ctx.res.write(`: ${text}${this.eol}${this.eol}`);
  }

  pump(): void {
    this.timer = undefined;
    if (this.done) return;
    const { run, state, tokens, timesNs } = this;
    const now = state.clock.nowNs();
    const n = tokens.length;
    while (this.i < n) {
      // No time: the run had finished before the stream began, so every token is due.
      const due = timesNs[this.i];
      if (due !== undefined && due > now) {
        this.timer = state.timers.set(due, this.tick);
        return;
      }
      if (this.i === this.truncateAt) {
        state.stats.streams.truncated++;
        this.close();
        return;
      }
      this.send({ type: 'token', content: tokens[this.i] });
      this.i++;
    }
    state.runs.whenFinished(run, () => this.finish());
  }

  finish(): void {
    if (this.done) return;
    const run = this.run;
    this.comment('run finished');
    if (run.status === 'completed') {
      const k = run.produced;
      this.send({ type: 'end', run_id: run.id, usage: { total_tokens: run.promptTokens + k, prompt_tokens: run.promptTokens, completion_tokens: k } });
      this.state.stats.streams.ended++;
    } else {
      // The interface names no failure event; a failed run sends `error` and no `end`.
      this.send({ type: 'error', run_id: run.id, error: run.error });
    }
    this.close();
  }

  close(): void {
    this.done = true;
    this.state.timers.clear(this.timer);
    this.ctx.res.end();
  }

  aborted(): void {
    if (this.done) return;
    this.done = true;
    this.state.timers.clear(this.timer);
    this.state.stats.streams.aborted++;
  }
}

/** Starts a streaming run of `flowId` and writes it to the response. */
export function startStream(state: ServiceState, ctx: RequestContext, flowId: string, account: string, input: string, sessionId: string | undefined): RunRecord {
  const plan = state.faults.active ? state.faults.streamPlan() : undefined;
  const stall = plan !== undefined && plan.stallAfter >= 0 ? { afterTokens: plan.stallAfter, pauseNs: plan.stallNs } : undefined;
  if (stall !== undefined) state.stats.streams.stalled++;
  const run = state.runs.start(flowId, account, input, sessionId, 'stream', stall);
  state.stats.streams.started++;
  if (!writeStreamHead(state, ctx)) return run;
  const n = run.produced;
  const truncateAt = plan !== undefined && plan.truncate && n > 0 ? Math.floor(n / 2) : -1;
  const w = new StreamWriter(state, ctx, run, state.runs.tokens(run), run.timesNs, truncateAt, state.opts.quirks.sseCrlf ? '\r\n' : '\n');
  ctx.res.on('close', () => w.aborted());
  w.comment('stream opened');
  w.send({ type: 'start', run_id: run.id });
  if (state.opts.quirks.sseUnknownEvents) w.send({ type: 'metadata', run_id: run.id, flow_id: flowId });
  w.pump();
  return run;
}
