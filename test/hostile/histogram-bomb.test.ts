/**
 * A report whose histogram is a decompression bomb: a few hundred KB that inflate to hundreds
 * of MB. `merge` refuses it with exit 2, naming the file and the field, before decoding it.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { deflateSync } from 'node:zlib';
import { afterAll, describe, expect, it } from 'vitest';
import { memoryIo } from '../../src/cli/io.js';
import { main } from '../../src/cli/main.js';
import { checkEncodedHistogram, MAX_INFLATED_HISTOGRAM_BYTES } from '../../src/collect/histogram.js';
import { fixtureReport } from '../report/fixture.js';

const dir = mkdtempSync(join(tmpdir(), 'fg-bomb-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A compressed HDR histogram (V2 cookie) whose payload inflates to `payloadBytes` of zeros. */
function bomb(payloadBytes: number, digits = 3, highest = 3_600_000_000n): string {
  const header = Buffer.alloc(40);
  header.writeUInt32BE(0x1c849303, 0);
  header.writeInt32BE(payloadBytes, 4);
  header.writeInt32BE(digits, 12);
  header.writeBigInt64BE(1n, 16);
  header.writeBigInt64BE(highest, 24);
  header.writeDoubleBE(1, 32);
  const deflated = deflateSync(Buffer.concat([header, Buffer.alloc(payloadBytes)]));
  const out = Buffer.alloc(8 + deflated.length);
  out.writeUInt32BE(0x1c849314, 0);
  out.writeInt32BE(deflated.length, 4);
  deflated.copy(out, 8);
  return out.toString('base64');
}

describe('histogram bombs', () => {
  it('are refused from their header and inflated size, before any decoding', () => {
    expect(() => checkEncodedHistogram(bomb(64 * 1024 * 1024))).toThrow(`inflates past ${MAX_INFLATED_HISTOGRAM_BYTES / 2 ** 20} MiB`);
    expect(() => checkEncodedHistogram(bomb(16, 9))).toThrow('9 significant digits');
    expect(() => checkEncodedHistogram(bomb(16, 3, 1n << 60n))).toThrow('out of range');
    expect(() => checkEncodedHistogram('SGVsbG8=')).toThrow('not a compressed HDR histogram');
  });

  it('merge exits 2 naming the file and the field', async () => {
    const good = fixtureReport();
    const evil = { ...good, histograms: { ...good.histograms, 'run.latency': bomb(64 * 1024 * 1024) } };
    const a = join(dir, 'a.json');
    const b = join(dir, 'evil.json');
    writeFileSync(a, JSON.stringify(good));
    writeFileSync(b, JSON.stringify(evil));
    const io = memoryIo({ cwd: dir });
    const before = process.memoryUsage().rss;
    expect(await main(['merge', a, b, '-o', join(dir, 'merged.json')], io)).toBe(2);
    expect(io.err()).toMatch(/evil\.json.*histograms\["run\.latency"\] is not a readable HDR histogram: inflates past 4 MiB/);
    expect((process.memoryUsage().rss - before) / 2 ** 20).toBeLessThan(200);
  });
});
