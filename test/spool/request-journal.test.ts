/** The request journal's lines on a real temp dir: a start line before each attempt, its end line soon after. */
import { spawnSync } from 'node:child_process';
import fs, { mkdirSync, mkdtempSync, readFileSync, readdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { syncBuiltinESMExports } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { RequestBudget } from '../../src/api/request-budget.js';
import { ManualClock } from '../../src/core/clock.js';
import { BudgetExhaustedError } from '../../src/core/errors.js';
import { thisProcess } from '../../src/core/process-identity.js';
import { Database } from '../../src/load/database.js';
import { RequestLog } from '../../src/load/request-log.js';
import { Store } from '../../src/load/store.js';
import { RequestJournal, otherRunsJournalling, type JournalLine } from '../../src/spool/request-journal.js';

const attempt = (path: string) => ({ scope: 'analytics@http://127.0.0.1', method: 'GET', path, startedAt: 1_000 });
const at = (path: string, startedAt: number) => ({ ...attempt(path), startedAt });

/** A run's journal in `dir`, with a database it moves into, and the request log over both. */
function loggedRun(dir: string, runId: string): { db: string; runJournal: RequestJournal; store: Store; log: RequestLog } {
  const db = join(dir, 'log.duckdb');
  const runJournal = new RequestJournal(join(dir, 'requests'), runId);
  const store = new Store(db, {}, runJournal);
  return { db, runJournal, store, log: new RequestLog(store, runJournal) };
}
const nextTurn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

describe('RequestJournal', () => {
  let dir: string;
  let journal: RequestJournal;
  const onDisk = (): JournalLine[] =>
    readdirSync(dir).flatMap((name) =>
      readFileSync(join(dir, name), 'utf8')
        .split('\n')
        .filter((l) => l !== '')
        .map((l) => JSON.parse(l) as JournalLine),
    );
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'docpipe-journal-'));
    journal = new RequestJournal(dir, 'run-1');
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('writes a start line before the attempt, and its end line with the next start line', () => {
    const first = journal.begin(attempt('/a'));
    expect(onDisk()).toEqual([expect.objectContaining({ id: first, status: null })]);
    journal.end(first, attempt('/a'), 200, 12.4);
    // Not yet: a process killed now has no attempt in flight, and loses only this outcome.
    expect(onDisk()).toHaveLength(1);
    const second = journal.begin(attempt('/b'));
    expect(onDisk().map((l) => [l.id, l.status])).toEqual([
      [first, null],
      [first, 200],
      [second, null],
    ]);
  });

  it('writes a waiting end line at the next turn of the event loop, or when closed', async () => {
    const id = journal.begin(attempt('/a'));
    journal.end(id, attempt('/a'), 503, 3);
    await nextTurn();
    expect(onDisk().map((l) => l.status)).toEqual([null, 503]);

    const other = journal.begin(attempt('/b'));
    journal.end(other, attempt('/b'), 200, 3);
    journal.close();
    expect(onDisk().map((l) => l.status)).toEqual([null, 503, null, 200]);
    expect(journal.lines()).toEqual([
      expect.objectContaining({ id, status: 503, duration_ms: 3 }),
      expect.objectContaining({ id: other, status: 200 }),
    ]);
  });

  it('a file taken for ingest has every end line written before it', () => {
    const id = journal.begin(attempt('/a'));
    journal.end(id, attempt('/a'), 200, 1);
    const [taken] = journal.take();
    const lines = readFileSync(taken!, 'utf8').trim().split('\n');
    expect(lines.map((l) => (JSON.parse(l) as JournalLine).status)).toEqual([null, 200]);
  });

  it("takes a dead run's journal whole, also beside the file that run's own unfinished write had taken", () => {
    // A run killed during a write leaves its journal and the part that write had taken
    // (`….jsonl.1.ingesting`). Moving the journal must not overwrite that part: both hold
    // attempts the hourly budget counts.
    const gone = spawnSync(process.execPath, ['-e', '']).pid;
    const lineOf = (n: number): string =>
      JSON.stringify({ id: `dead:${n}`, run_id: 'dead', scope: 's', method: 'GET', path: `/p${n}`, started_ms: n, status: 200, duration_ms: 1 });
    writeFileSync(join(dir, `${gone}-dead.jsonl.1.ingesting`), `${lineOf(1)}\n${lineOf(2)}\n`);
    writeFileSync(join(dir, `${gone}-dead.jsonl`), `${lineOf(3)}\n`);
    const taken = journal.take();
    expect(new Set(taken).size).toBe(taken.length);
    const ids = taken.flatMap((file) => readFileSync(file, 'utf8').trim().split('\n').map((l) => (JSON.parse(l) as JournalLine).id));
    expect(ids.sort()).toEqual(['dead:1', 'dead:2', 'dead:3']);
    journal.settle(taken);
    expect(readdirSync(dir)).toEqual([]);
  });

  it.runIf(process.platform === 'linux')("takes the journal of a run that is gone whose pid a live process has now, but not a live process's", () => {
    const lineOf = (id: string): string =>
      JSON.stringify({ id, run_id: 'r', scope: 's', method: 'GET', path: '/p', started_ms: 1, status: 200, duration_ms: 1 });
    const parent = `${process.ppid}-live.jsonl`;
    const reused = `${process.ppid}+1.${thisProcess().start?.split('.').slice(1).join('.')}-gone.jsonl`;
    writeFileSync(join(dir, parent), `${lineOf('live:1')}\n`);
    writeFileSync(join(dir, reused), `${lineOf('gone:1')}\n`);
    const taken = journal.take();
    expect(taken.map((f) => f.split('/').at(-1)!.replace(/\.\d+\.ingesting$/, ''))).toEqual([reused]);
    journal.settle(taken);
    expect(readdirSync(dir)).toEqual([parent]);
  });

  it.each([
    // SIGSTOP: both clocks move on; only the monotonic one is faked here.
    ['stopped', () => vi.useFakeTimers({ toFake: ['performance'] }), () => vi.advanceTimersByTime(6 * 60_000)],
    // A suspended machine: the wall clock moves on, monotonic time does not.
    ['suspended', () => vi.useFakeTimers({ toFake: ['Date'] }), () => vi.setSystemTime(Date.now() + 6 * 60_000)],
  ] as const)('a run whose file another process moved in while it was %s (taken for gone) goes on in a fresh file', (_how, fake, sixMinutes) => {
    // Only the clock that tells how long the run wrote nothing is fake.
    fake();
    try {
      const first = journal.begin(attempt('/a'));
      const [name] = readdirSync(dir);
      // 6 minutes pass; meanwhile another process takes the file (rename), moves it into
      // request_log and removes it.
      sixMinutes();
      renameSync(join(dir, name!), join(dir, `${name!}.1.ingesting`));
      rmSync(join(dir, `${name!}.1.ingesting`));
      journal.end(first, attempt('/a'), 200, 1);
      const second = journal.begin(attempt('/b'));
      journal.close();
      const lines = readFileSync(join(dir, name!), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as JournalLine);
      expect(lines.map((l) => [l.id, l.status])).toEqual([[first, 200], [second, null]]);
    } finally {
      vi.useRealTimers();
    }
  });

  it.each([
    ['stopped', () => vi.useFakeTimers({ toFake: ['performance'] }), () => vi.advanceTimersByTime(6 * 60_000)],
    ['suspended', () => vi.useFakeTimers({ toFake: ['Date'] }), () => vi.setSystemTime(Date.now() + 6 * 60_000)],
  ] as const)('a line written while the run was %s within the write, its file moved in meanwhile, goes into a fresh file too', (_how, fake, sixMinutes) => {
    fake();
    const realWrite = fs.writeSync;
    const patched = fs as { writeSync: unknown };
    let stopInNextWrite = false;
    // The run stops after its look at the file and before the write; meanwhile another process
    // takes the file (rename), moves it into request_log and removes it.
    patched.writeSync = (...args: unknown[]): unknown => {
      if (stopInNextWrite) {
        stopInNextWrite = false;
        sixMinutes();
        for (const name of readdirSync(dir)) {
          renameSync(join(dir, name), join(dir, `${name}.1.ingesting`));
          rmSync(join(dir, `${name}.1.ingesting`));
        }
      }
      return (realWrite as (...a: unknown[]) => unknown)(...args);
    };
    syncBuiltinESMExports();
    try {
      journal.begin(attempt('/a'));
      stopInNextWrite = true;
      const second = journal.begin(attempt('/b'));
      // The request is sent now: its start line must be in a file request_log will take.
      expect(readdirSync(dir)).toHaveLength(1);
      expect(journal.lines().map((l) => l.id)).toEqual([second]);
    } finally {
      patched.writeSync = realWrite;
      syncBuiltinESMExports();
      vi.useRealTimers();
    }
  });

  it('two runs in one process: each file is taken once, and a run whose file was taken goes on in a fresh one', () => {
    const other = new RequestJournal(dir, 'run-2');
    const first = other.begin(attempt('/a'));
    other.end(first, attempt('/a'), 200, 1);
    const second = other.begin(attempt('/b'));
    // This run's write takes the other's file (same process, so not in use by another process)...
    const takenHere = journal.take();
    expect(takenHere).toHaveLength(1);
    // ...and the other's next line goes to a fresh file, not into the one being moved.
    other.end(second, attempt('/b'), 200, 1);
    other.close();
    const takenThere = other.take();
    expect(takenThere.filter((f) => takenHere.includes(f))).toEqual([]);
    const linesIn = (files: string[]) =>
      files.flatMap((f) => readFileSync(f, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as JournalLine)).map((l) => [l.id, l.status]);
    // Both starts and the first end were in the file taken here; the second end, in the fresh one.
    expect(linesIn(takenHere)).toEqual([[first, null], [first, 200], [second, null]]);
    expect(linesIn(takenThere)).toEqual([[second, 200]]);
    journal.settle(takenHere);
    other.settle(takenThere);
    expect(readdirSync(dir)).toEqual([]);
  });

  it('two runs at once share one hourly budget: each reads the other\'s requests before each of its own', async () => {
    const scope = 'analytics@http://127.0.0.1';
    const clock = new ManualClock(10_000);
    const a = loggedRun(dir, 'run-a');
    const b = loggedRun(dir, 'run-b');
    const budget = (run: typeof a) => new RequestBudget({ scope, perHour: 10, maxWaitMs: 0, clock, history: run.log });
    const [budgetA, budgetB] = [budget(a), budget(b)];
    /** A request as the session makes it: a slot, then its start line before it is sent (and the slot's lock let go). */
    const request = async (run: typeof a, spend: RequestBudget, path: string): Promise<void> => {
      const release = await spend.acquire();
      run.runJournal.begin(at(path, clock.now()));
      release();
      clock.advance(1);
    };
    // Both planned on an empty hour; A goes first, and moves some of its lines in with a load.
    await Promise.all([budgetA.ready(), budgetB.ready()]);
    for (let i = 0; i < 3; i++) await request(a, budgetA, `/a${i}`);
    await a.store.write(async () => undefined);
    for (let i = 3; i < 6; i++) await request(a, budgetA, `/a${i}`);
    // B has the hour's other 4 slots, not 10; then A has none either.
    let spentB = 0;
    for (;;) {
      try {
        await request(b, budgetB, `/b${spentB}`);
        spentB++;
      } catch (error) {
        expect(error).toBeInstanceOf(BudgetExhaustedError);
        break;
      }
    }
    expect(spentB).toBe(4);
    await expect(request(a, budgetA, '/a6')).rejects.toThrow(BudgetExhaustedError);
    expect((await a.log.requestTimes(scope, 0)).length).toBe(10);
  });

  it('an attempt withdrawn before it was sent leaves request_log and the hour, whether or not its start was moved in already', async () => {
    const { db, runJournal, store, log } = loggedRun(dir, 'run-w');
    const sent = runJournal.begin(at('/sent', 1_000));
    runJournal.end(sent, at('/sent', 1_000), 201, 5);
    // Its start moves in with a write (a ledger's claim) before the attempt is refused.
    const early = runJournal.begin(at('/early', 2_000));
    await store.write(async () => undefined);
    expect((await log.requestTimes('analytics@http://127.0.0.1', 0)).sort()).toEqual([1_000, 2_000]);
    runJournal.withdraw(early, at('/early', 2_000));
    const late = runJournal.begin(at('/late', 3_000));
    runJournal.withdraw(late, at('/late', 3_000));
    // Before the next write moves them: the hour already leaves both out.
    expect(await log.requestTimes('analytics@http://127.0.0.1', 0)).toEqual([1_000]);
    await store.write(async () => undefined);
    const rows = await Database.with(db, {}, (d) => d.all<{ path: string; status: number }>('SELECT path, status FROM request_log ORDER BY path'));
    expect(rows).toEqual([{ path: '/sent', status: 201 }]);
    expect(await log.requestTimes('analytics@http://127.0.0.1', 0)).toEqual([1_000]);
  });

  it('an attempt whose connection was never made leaves the hour for a scope of its own, whether or not its start was moved in already', async () => {
    const { db, runJournal, store, log } = loggedRun(dir, 'run-n');
    const scope = 'analytics@http://127.0.0.1';
    const notSent = (path: string, startedAt: number) => ({ ...at(path, startedAt), scope: 'analytics:not-sent@http://127.0.0.1' });
    const sent = runJournal.begin(at('/sent', 1_000));
    runJournal.end(sent, at('/sent', 1_000), 200, 5);
    // Its start moves in with a write before the connection is refused.
    const early = runJournal.begin(at('/early', 2_000));
    await store.write(async () => undefined);
    expect((await log.requestTimes(scope, 0)).sort()).toEqual([1_000, 2_000]);
    runJournal.end(early, notSent('/early', 2_000), 0, 3);
    const late = runJournal.begin(at('/late', 3_000));
    runJournal.end(late, notSent('/late', 3_000), 0, 3);
    // Before the next write moves them: the hour already leaves both out.
    expect(await log.requestTimes(scope, 0)).toEqual([1_000]);
    await store.write(async () => undefined);
    const rows = await Database.with(db, {}, (d) =>
      d.all<{ path: string; scope: string; status: number }>('SELECT path, scope, status FROM request_log ORDER BY path'),
    );
    // Still logged, as attempts with no answer, under their own scope.
    expect(rows).toEqual([
      { path: '/early', scope: 'analytics:not-sent@http://127.0.0.1', status: 0 },
      { path: '/late', scope: 'analytics:not-sent@http://127.0.0.1', status: 0 },
      { path: '/sent', scope, status: 200 },
    ]);
    expect(await log.requestTimes(scope, 0)).toEqual([1_000]);
  });

  it('moves what a crash left into request_log as it was written: torn and foreign lines are left out, an end line in another file than its start fills it in', async () => {
    const { db, store } = loggedRun(dir, 'run-c');
    const requests = join(dir, 'requests');
    mkdirSync(requests, { recursive: true });
    const line = (id: string, fields: Record<string, unknown> = {}): string =>
      JSON.stringify({ id, run_id: 'dead', scope: 'analytics@http://127.0.0.1', method: 'GET', path: `/${id}?a='b'`, started_ms: 5_000, status: null, duration_ms: null, ...fields });
    // A dead run's journal, moved in two parts: the end of `split` is in the file written after
    // the first was taken; the second file ends in a line cut short by kill -9.
    const gone = 999_999_999;
    writeFileSync(join(requests, `${gone}-dead.jsonl.1.ingesting`), [line('done'), line('done', { status: 200, duration_ms: 7 }), line('split'), ''].join('\n'));
    writeFileSync(
      join(requests, `${gone}-dead.jsonl`),
      [
        line('split', { status: 503, duration_ms: 9 }),
        line('typed', { started_ms: '5000' }), // not a journal's line: a start time as text
        line('frac', { started_ms: 5_000.4, status: 200, duration_ms: 3.6 }), // a library caller's clock
        line('lone', { scope: 'agent:\ud800x', status: 200, duration_ms: 1 }), // a lone surrogate in a library caller's project id
        line('nulls', { scope: null }),
        '[1, 2]',
        line('torn').slice(0, 40),
      ].join('\n'),
    );
    await store.write(async () => undefined);
    const rows = await Database.with(db, {}, (d) =>
      d.all<{ id: string; path: string; status: number | null; ms: number; at: number }>(
        'SELECT request_id AS id, path, status, duration_ms AS ms, epoch_ms(started_at)::INTEGER AS at FROM request_log ORDER BY id',
      ),
    );
    expect(rows).toEqual([
      { id: 'done', path: "/done?a='b'", status: 200, ms: 7, at: 5_000 },
      { id: 'frac', path: "/frac?a='b'", status: 200, ms: 4, at: 5_000 },
      { id: 'lone', path: "/lone?a='b'", status: 200, ms: 1, at: 5_000 },
      { id: 'split', path: "/split?a='b'", status: 503, ms: 9, at: 5_000 },
    ]);
    expect(readdirSync(requests)).toEqual([]);
  });

  it('tells another run journalling into the folder: a live process\'s file, or another run\'s of this process', () => {
    const own = journal.begin(attempt('/a'));
    journal.end(own, attempt('/a'), 200, 1);
    journal.close();
    expect(otherRunsJournalling(dir, 'run-1')).toBe(false);
    // A process that is gone: its file waits to be moved in, but nobody is at work.
    writeFileSync(join(dir, '999999-gone.jsonl'), '');
    expect(otherRunsJournalling(dir, 'run-1')).toBe(false);
    // A live process (this one's parent), also while a write moves its file.
    writeFileSync(join(dir, `${process.ppid}-other.jsonl.1.ingesting`), '');
    expect(otherRunsJournalling(dir, 'run-1')).toBe(true);
    rmSync(join(dir, `${process.ppid}-other.jsonl.1.ingesting`));
    // A process that is gone, whose pid a live process (the parent) has now.
    const reused = `${process.ppid}+1.${thisProcess().start?.split('.').slice(1).join('.')}-reused.jsonl`;
    writeFileSync(join(dir, reused), '');
    expect(otherRunsJournalling(dir, 'run-1')).toBe(process.platform !== 'linux');
    rmSync(join(dir, reused));
    // Another run of this process, named with its start and without (docpipe 0.2.0).
    const me = thisProcess();
    writeFileSync(join(dir, `${me.pid}${me.start ? `+${me.start}` : ''}-run-2.jsonl`), '');
    expect(otherRunsJournalling(dir, 'run-1')).toBe(true);
    rmSync(join(dir, `${me.pid}${me.start ? `+${me.start}` : ''}-run-2.jsonl`));
    writeFileSync(join(dir, `${process.pid}-run-2.jsonl`), '');
    expect(otherRunsJournalling(dir, 'run-1')).toBe(true);
    expect(otherRunsJournalling(join(dir, 'none'), 'run-1')).toBe(false);
  });
});
