/**
 * The scenario format: what a user writes (`ScenarioInput`) and what the run engine gets
 * (`ResolvedScenario`: every default filled, every unit converted, weights normalised).
 */
import type { ValidateMode } from '../api/index.js';
import type { OpName } from '../core/ops.js';
import type { Tier } from '../core/tiers.js';
import type { LoadInput, ResolvedLoad } from '../load/index.js';
import type { Journey } from './journey.js';
import type { ResolvedData } from './data-schema.js';
import type { ParsedStep } from './steps-schema.js';
import type { TokenizerName } from './tokenizer.js';

/**
 * A rate: `"100/min"`, `"16.7/s"`, `"5000/h"`, a number per second, or a share of the tier's
 * limit: `"100%"` is the limit, `"120%"` is over it.
 */
export type RateInput = number | string;

/** A duration: `"500ms"`, `"30s"`, `"2m"`, `"1h"`, or a number of milliseconds. */
export type DurationInput = number | string;

/** The `load` section of a scenario: one executor's fields (each executor's module documents its own). */
export type { LoadInput };

/** JSON-like input of a run, stream or trigger. */
export type MixInputValue = string | { readonly [key: string]: unknown };

/** Query parameters of `listFlows` or `getUsage`. */
export type MixQuery = { readonly [key: string]: string | number | boolean };

/** One kind of request in the traffic mix. */
export interface MixEntryInput {
  readonly op: OpName;
  /** Relative share of the traffic (> 0, default 1); weights need not add up to anything. */
  readonly weight?: number;
  /** Flow addressed by run, stream, getFlow, createSession or trigger (default: the engine picks). */
  readonly flowId?: string;
  /** Input of run/stream (a string) or the JSON body of trigger (an object). */
  readonly input?: MixInputValue;
  /** Session of run, stream or getHistory. */
  readonly sessionId?: string;
  /** Query of listFlows (`limit`, `offset`, `status`) or getUsage (`start_date`, …). */
  readonly query?: MixQuery;
  /** The request is meant to fail (negative test): its 4xx are excluded from the SLO. */
  readonly negative?: boolean;
}

/** A threshold's expression (`"<2s"`), or the expression with options. */
export type ThresholdInput =
  | string
  | {
      readonly expr: string;
      readonly abortOnFail?: boolean;
      /** With `abortOnFail`: do not judge it before this much of the run has passed (k6's name). */
      readonly delayAbortEval?: DurationInput;
    };

/** A scenario as written in a `.ts`, `.js`, `.json` or `.yaml` file. */
export interface ScenarioInput {
  /** Lower-case letters, digits and dashes; names the report directory and metrics. */
  readonly name: string;
  readonly description?: string;
  readonly tier: Tier;
  readonly load: LoadInput;
  /** A weighted mix of single requests. A scenario has one of `mix`, `journey` or `steps`. */
  readonly mix?: readonly MixEntryInput[];
  /** Code run once per iteration (`.ts`/`.js` scenarios): a user's whole journey. */
  readonly journey?: Journey;
  /** A journey as data, for JSON and YAML scenarios: requests, `sleep`, `repeat`, `save`, `check`. */
  readonly steps?: readonly StepInput[];
  /** Rows for iterations (`vu.data`, `{{data.<column>}}`): a file, or synthetic prompts. */
  readonly data?: DataInput;
  /**
   * What prompt and output lengths are counted in: `words` (the default), or a tokenizer's
   * tokens (`cl100k_base`, `o200k_base`; needs the optional package `gpt-tokenizer`).
   */
  readonly tokenizer?: TokenizerName;
  /** Lower bounds of the prompt-length bands in that unit, such as `[0, 128, 512, 2048]`. */
  readonly promptBands?: readonly number[];
  /** `"run.latency.p99": "<2s"`, `"availability": ">=99.9%"`, … (checked by the run engine). */
  readonly thresholds?: { readonly [key: string]: ThresholdInput };
  /** Seed of random gaps and of the mix order (default 1). */
  readonly seed?: number;
  /**
   * Whole-request deadlines (durations; 0 for none): `request` for every operation (default
   * 60s, as k6's), and an operation's own (`stream: '5m'` for long generations). A request still
   * unfinished at its deadline fails with `TIMEOUT`; a stream cut so is incomplete.
   */
  readonly timeouts?: { readonly request?: string | number } & { readonly [K in OpName]?: string | number };
  /**
   * How much of each 2xx body is checked against the interface's schemas: `full` (default)
   * every body; `sample` one in 16 (deterministic, per client); `off` none (status and HTTP
   * framing only). Anything but `full` is named in the report's warnings and on the console.
   */
  readonly validate?: ValidateMode;
  readonly slo?: { readonly objective?: number };
}

/** A step of `steps` as written (see docs/scenarios.md). */
export type StepInput = ParsedStep;

/** `data`: a file of rows taken in an order, or synthetic prompts of a length in words. */
export type DataInput =
  | { readonly file: string; readonly order?: 'sequential' | 'random' | 'unique' }
  | { readonly synthetic: { readonly words: { readonly mean: number; readonly sd?: number; readonly min?: number; readonly max?: number } } }
  | { readonly synthetic: SyntheticTokensInput | string };

/**
 * Prompts of exactly `promptTokens` tokens (a list: a sweep); GuideLLM's string form
 * `"prompt_tokens=256,output_tokens=128"` is the same. The interface has no output-length
 * parameter: `outputTokens` is only sent in the flow variable `outputTokensVar` names.
 */
export interface SyntheticTokensInput {
  readonly promptTokens: number | readonly number[];
  readonly outputTokens?: number;
  readonly outputTokensVar?: string;
  readonly tokenizer?: TokenizerName;
}

/** Changes to a scenario from the command line. */
export interface ScenarioOverrides {
  /** New schedule length; a ramp's stages are scaled to it. */
  readonly durationMs?: number;
  /** New rate (same forms as `load.rate`); a ramp's rates are scaled so its peak equals it. */
  readonly rate?: string;
  readonly tier?: Tier;
  readonly maxInFlight?: number;
}

/** One mix entry with its weight normalised (all weights add up to 1). */
export interface ResolvedMixEntry {
  readonly op: OpName;
  readonly weight: number;
  readonly flowId: string | undefined;
  readonly input: MixInputValue | undefined;
  readonly sessionId: string | undefined;
  readonly query: MixQuery | undefined;
  readonly negative: boolean;
}

/** A threshold as written, not yet parsed (the run engine parses it with the slo grammar). */
export interface ResolvedThreshold {
  readonly key: string;
  readonly expr: string;
  readonly abortOnFail: boolean;
  /** True for the defaults a scenario without `thresholds` is judged on. */
  readonly implicit?: boolean;
  /** Time from the run's start before an abort-on-fail threshold is judged (ms; 0 = at once). */
  readonly delayAbortEvalMs?: number;
}

/** A validated scenario, every default filled. Frozen. */
export interface ResolvedScenario {
  readonly name: string;
  /** Empty when the scenario has none. */
  readonly description: string;
  readonly tier: Tier;
  readonly tierLimitPerMinute: number;
  readonly load: ResolvedLoad;
  readonly mix: readonly ResolvedMixEntry[];
  readonly thresholds: readonly ResolvedThreshold[];
  readonly seed: number;
  /** Whole-request deadline of each operation the scenario set one for, in ms (0: none); others use the client's. */
  readonly deadlinesMs: Readonly<Partial<Record<OpName, number>>>;
  /** How much of each 2xx body its requests check (default `full`). */
  readonly validate: ValidateMode;
  /** SLO objective, 0–1 (default 0.999). */
  readonly objective: number;
  /** Where the scenario came from (a file path), when known. */
  readonly source?: string;
  /** The journey each iteration runs (steps are compiled into one); undefined for a mix. */
  readonly journey?: Journey | undefined;
  /** Where iterations' data rows come from; undefined without `data`. */
  readonly data?: ResolvedData;
  /** What streams' prompts and outputs are counted in; words when absent. */
  readonly tokenizer?: TokenizerName;
  /** Lower bounds of the prompt-length bands, from 0, in the tokenizer's unit; its defaults when absent. */
  readonly promptBands?: readonly number[];
  /** In a run of several scenarios: when this one starts, after the run's start (ms). */
  readonly startAfterMs?: number;
}
