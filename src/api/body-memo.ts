/**
 * The verdict on the last 2xx body of each operation, for reuse when the next body is the
 * same text. Checking a body is a pure function of its bytes, so a byte-identical body gets
 * the identical verdict: every body is still judged, exactly, but a list or a flow that a
 * service answers the same way thousands of times is parsed and checked once. (Parsing and
 * checking a 4 KB flow page is about 15 µs, as much as the rest of a request's client-side cost.)
 * A body that differs from the last by one byte is parsed and checked in full.
 */
import type { OpName } from '../core/ops.js';
import type { ContractViolation } from '../core/types.js';

/** Bodies longer than this are not kept: comparing them would cost what checking them saves. */
const MAX_KEPT_CHARS = 64 * 1024;

/** What a body was found to be. */
export interface BodyVerdict {
  readonly text: string;
  readonly violations: readonly ContractViolation[];
}

/** One client's memo: the last judged 2xx body per operation. */
export class BodyMemo {
  private readonly last = new Map<OpName, BodyVerdict>();

  /** The verdict on `text` when it equals the last body judged for `op`. */
  lookup(op: OpName, text: string): BodyVerdict | undefined {
    const v = this.last.get(op);
    return v !== undefined && v.text === text ? v : undefined;
  }

  /** Keeps the verdict on a body that parsed to a JSON object. */
  keep(op: OpName, text: string, violations: readonly ContractViolation[]): void {
    if (text.length <= MAX_KEPT_CHARS) this.last.set(op, { text, violations });
  }
}
