import { spawn } from 'node:child_process';
import { appendFileSync, existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openHistoryWriter, parseHistoryText, readHistory } from '../../src/probe/index.js';
import { record, removeTempDirs, tempDir } from './helpers.js';

const ROOT = resolve(import.meta.dirname, '../..');
const DAY = 86_400_000;
const T0 = Date.UTC(2026, 10, 22, 23, 59, 0);

afterEach(() => removeTempDirs());

describe('history writer and reader', () => {
  it('appends one JSON line per record into one file per UTC day, and reads them back in order', async () => {
    const dir = tempDir();
    const w = await openHistoryWriter({ dir });
    const recs = [0, 30_000, 60_000, 90_000].map((d, i) => record({ timeMs: T0 + d, round: i }));
    for (const r of recs) expect(await w.append(r)).toEqual({ ok: true });
    await w.close();
    expect(readdirSync(dir).sort()).toEqual(['probe-2026-11-22.jsonl', 'probe-2026-11-23.jsonl']);
    const day1 = readFileSync(join(dir, 'probe-2026-11-22.jsonl'), 'utf8');
    expect(day1.split('\n')).toEqual([JSON.stringify(recs[0]), JSON.stringify(recs[1]), '']);
    const read = await readHistory(dir);
    expect(read.records).toEqual(recs);
    expect(read).toMatchObject({ tornTails: 0, badLines: 0, files: ['probe-2026-11-22.jsonl', 'probe-2026-11-23.jsonl'] });
    // A range selects by record time.
    expect((await readHistory(dir, { fromMs: T0 + 60_000 })).records).toEqual(recs.slice(2));
  });

  it('a restarted writer continues the same day file', async () => {
    const dir = tempDir();
    const a = await openHistoryWriter({ dir });
    await a.append(record({ timeMs: T0 - 60_000, round: 0 }));
    await a.close();
    const b = await openHistoryWriter({ dir });
    await b.append(record({ timeMs: T0, round: 1 }));
    await b.close();
    expect((await readHistory(dir)).records.map((r) => r.round)).toEqual([0, 1]);
  });

  it('deletes files older than the retention when it rotates', async () => {
    const dir = tempDir();
    for (const day of ['2026-10-01', '2026-10-17', '2026-10-18', '2026-11-21']) writeFileSync(join(dir, `probe-${day}.jsonl`), '');
    writeFileSync(join(dir, 'notes.txt'), 'not a history file');
    const w = await openHistoryWriter({ dir, retentionMs: 35 * DAY });
    await w.append(record({ timeMs: Date.UTC(2026, 10, 22, 12) }));
    await w.close();
    // 35 days before 2026-11-22T12:00 is 2026-10-18T12:00: days ending before it go.
    expect(readdirSync(dir).sort()).toEqual(['notes.txt', 'probe-2026-10-18.jsonl', 'probe-2026-11-21.jsonl', 'probe-2026-11-22.jsonl']);
  });

  it('ignores a torn last line, and a new writer cuts it off before appending', async () => {
    const dir = tempDir();
    const w = await openHistoryWriter({ dir });
    await w.append(record({ timeMs: T0 - 120_000, round: 0 }));
    await w.close();
    const file = join(dir, 'probe-2026-11-22.jsonl');
    appendFileSync(file, JSON.stringify(record({ timeMs: T0 - 60_000, round: 1 })).slice(0, 40));
    const torn = await readHistory(dir);
    expect(torn.records.map((r) => r.round)).toEqual([0]);
    expect(torn.tornTails).toBe(1);

    const w2 = await openHistoryWriter({ dir });
    await w2.append(record({ timeMs: T0 - 30_000, round: 2 }));
    await w2.close();
    const healed = await readHistory(dir);
    expect(healed.records.map((r) => r.round)).toEqual([0, 2]);
    expect(healed).toMatchObject({ tornTails: 0, badLines: 0 });
  });

  it('a file that is one torn record is emptied; foreign lines are counted, not fatal', async () => {
    expect(parseHistoryText('{"v":1,"ti')).toEqual({ records: [], torn: true, badLines: 0 });
    const good = JSON.stringify(record({ timeMs: T0 }));
    expect(parseHistoryText(`${good}\nnot json\n{"v":1}\n\n${good}\n`)).toMatchObject({ torn: false, badLines: 2 });
    const dir = tempDir();
    writeFileSync(join(dir, 'probe-2026-11-22.jsonl'), '{"v":1,"time":"2026-11');
    const w = await openHistoryWriter({ dir });
    await w.append(record({ timeMs: T0 }));
    await w.close();
    expect(readFileSync(join(dir, 'probe-2026-11-22.jsonl'), 'utf8')).toBe(`${good}\n`);
  });

  it('reads a missing directory as empty', async () => {
    expect((await readHistory(join(tempDir(), 'nope'))).records).toEqual([]);
  });
});

describe('crash safety', () => {
  it('keeps every acknowledged record when the writer is SIGKILLed mid-stream, and a new writer continues cleanly', async () => {
    const dir = tempDir();
    const child = spawn(process.execPath, ['--import', 'tsx', join(ROOT, 'test/probe/fixtures/crash-writer.ts'), dir], {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let acked = -1;
    let buffered = '';
    let stderr = '';
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    // Every ack the child wrote before it died is read, so `acked` ends as the last acknowledged record.
    const drained = new Promise<void>((r) => child.stdout.once('end', r));
    const exited = new Promise<NodeJS.Signals | null>((r) => child.once('exit', (_code, signal) => r(signal)));
    child.stdout.on('data', (c: Buffer) => {
      buffered += c.toString();
      const lines = buffered.split('\n');
      buffered = lines.pop() ?? '';
      for (const line of lines) {
        const m = /^ack (\d+)$/.exec(line);
        if (m !== null) acked = Number(m[1]);
      }
      // Kill while it is busy appending, well into the stream.
      if (acked >= 150 && child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    });
    const signal = await exited;
    await drained;
    expect(signal, `writer exited by itself: ${stderr}`).toBe('SIGKILL');
    expect(acked).toBeGreaterThanOrEqual(150);

    const read = await readHistory(dir);
    const seqs = read.records.map((r) => r.round);
    // Every acknowledged record is there, in order, without gaps. The one being written when the
    // kill came is either whole (written, not yet acknowledged) or lost: never more than one.
    expect(seqs).toEqual(Array.from({ length: seqs.length }, (_, i) => i));
    expect([acked + 1, acked + 2]).toContain(seqs.length);
    expect(read.badLines).toBe(0);
    expect(read.tornTails).toBeLessThanOrEqual(1);

    // A new writer starts on a fresh line: its record reads back and nothing is unreadable.
    const w = await openHistoryWriter({ dir });
    const next = record({ timeMs: Date.now() + 10_000, instance: 'after', round: 999_999 });
    expect(await w.append(next)).toEqual({ ok: true });
    await w.close();
    const after = await readHistory(dir);
    expect(after.records.at(-1)).toEqual(next);
    expect(after).toMatchObject({ tornTails: 0, badLines: 0 });
    expect(after.records).toHaveLength(seqs.length + 1);
    expect(existsSync(dir)).toBe(true);
  });
});

describe('a history that cannot be read', () => {
  it('is a FlowgaugeError naming the file (exit 2 in the CLI), not an internal error', async () => {
    const { mkdirSync } = await import('node:fs');
    const dir = tempDir();
    // A day file that is a directory: listed, then unreadable.
    mkdirSync(join(dir, 'probe-2026-11-22.jsonl'));
    await expect(readHistory(dir)).rejects.toMatchObject({ code: 'FG_HISTORY_UNREADABLE', message: expect.stringContaining('probe-2026-11-22.jsonl cannot be read (EISDIR)') });
    const { memoryIo } = await import('../../src/cli/io.js');
    const { main } = await import('../../src/cli/main.js');
    const io = memoryIo({ cwd: dir });
    expect(await main(['slo', 'status', '--history', dir], io)).toBe(2);
    expect(io.err()).toContain('cannot be read (EISDIR)');
  });
});
