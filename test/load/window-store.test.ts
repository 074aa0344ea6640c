import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DatabaseError } from '../../src/core/errors.js';
import type { CheckedRow } from '../../src/extract/row-quality.js';
import { Database } from '../../src/load/database.js';
import { readLoadedWindows, replaceWindow, replaceWindows, type WindowLoad } from '../../src/load/window-store.js';

const window = { start: '2026-02-28', end: '2026-03-01' };
const rows = (n: number, base = 1): CheckedRow[] =>
  Array.from({ length: n }, (_, i) => ({ path: `/page-${i}`, human: base + i, ai: 1, total: base + i, flags: null }));

function load(overrides: Partial<WindowLoad> = {}): WindowLoad {
  return {
    metric: 'visitors',
    projectId: 'proj',
    window,
    rows: rows(3000),
    totals: { human: 100, ai: 10, total: 105, flags: null },
    fetchedAt: Date.parse('2026-03-05T01:00:00Z'),
    runId: 'run-1',
    pages: 12,
    requests: 12,
    walks: 1,
    warnings: [],
    ...overrides,
  };
}

describe('replaceWindow', () => {
  let db: Database;
  beforeEach(async () => {
    db = await Database.open(':memory:');
  });
  afterEach(() => db.close());

  it('loads rows, totals and bookkeeping (more rows than one data chunk)', async () => {
    await replaceWindow(db, load());
    const [count] = await db.all<{ n: bigint; sum: bigint }>('SELECT count(*) AS n, sum(human) AS sum FROM page_visitors');
    expect(count?.n).toBe(3000n);
    expect(count?.sum).toBe(BigInt((3000 * 3001) / 2));
    const totals = await db.all(`SELECT project_id, strftime(window_start, '%Y-%m-%d') AS s, strftime(window_end, '%Y-%m-%d') AS e, human, ai, total, run_id FROM visitor_totals`);
    expect(totals).toEqual([{ project_id: 'proj', s: '2026-02-28', e: '2026-03-01', human: 100n, ai: 10n, total: 105n, run_id: 'run-1' }]);
    const loaded = await readLoadedWindows(db, 'visitors', 'proj');
    expect(loaded.get('2026-02-28/2026-03-01')).toEqual({ ...window, fetchedAt: Date.parse('2026-03-05T01:00:00Z') });
    expect(await readLoadedWindows(db, 'views', 'proj')).toEqual(new Map());
  });

  it('replaces an earlier copy of the window and nothing else', async () => {
    await replaceWindow(db, load());
    const other = { start: '2026-02-27', end: '2026-02-28' };
    await replaceWindow(db, load({ window: other, rows: rows(5) }));
    await replaceWindow(db, load({ rows: rows(10, 7), runId: 'run-2' }));
    const counts = await db.all<{ s: string; n: bigint }>(
      `SELECT strftime(window_start, '%Y-%m-%d') AS s, count(*) AS n FROM page_visitors GROUP BY ALL ORDER BY s`,
    );
    expect(counts).toEqual([{ s: '2026-02-27', n: 5n }, { s: '2026-02-28', n: 10n }]);
    const runs = await db.all(`SELECT DISTINCT run_id FROM page_visitors WHERE window_start = '2026-02-28'`);
    expect(runs).toEqual([{ run_id: 'run-2' }]);
  });

  it('keeps the previous copy intact when a load fails half-way', async () => {
    await replaceWindow(db, load());
    // A duplicate path breaks the primary key in the middle of the append.
    const bad = [...rows(2000, 50), { path: '/page-5', human: 1, ai: 1, total: 1, flags: null }];
    await expect(replaceWindow(db, load({ rows: bad, runId: 'run-bad', totals: { human: 1, ai: 1, total: 1, flags: null } }))).rejects.toThrow(DatabaseError);
    const [state] = await db.all<{ n: bigint; runs: bigint }>('SELECT count(*) AS n, count(DISTINCT run_id) AS runs FROM page_visitors');
    expect(state).toEqual({ n: 3000n, runs: 1n });
    const totals = await db.all('SELECT human, run_id FROM visitor_totals');
    expect(totals).toEqual([{ human: 100n, run_id: 'run-1' }]);
    // The connection is usable again afterwards.
    await replaceWindow(db, load({ rows: rows(4), runId: 'run-3' }));
    const [after] = await db.all<{ n: bigint }>('SELECT count(*) AS n FROM page_visitors');
    expect(after?.n).toBe(4n);
  });

  it('loads several windows of both metrics in one transaction, each replacing only itself', async () => {
    const other = { start: '2026-03-01', end: '2026-03-02' };
    await replaceWindow(db, load({ rows: rows(7) }));
    await replaceWindows(db, [
      load({ rows: rows(3), runId: 'run-2' }),
      load({ window: other, rows: rows(4), runId: 'run-2', warnings: ['a, b', 'c'] }),
      load({ metric: 'views', rows: rows(5), runId: 'run-2' }),
      load({ window: other, rows: [], runId: 'run-2' , metric: 'views' }),
    ]);
    const counts = await db.all(
      `SELECT 'visitors' AS m, strftime(window_start, '%Y-%m-%d') AS s, count(*) AS n FROM page_visitors GROUP BY ALL
       UNION ALL SELECT 'views', strftime(window_start, '%Y-%m-%d'), count(*) FROM page_views GROUP BY ALL ORDER BY ALL`,
    );
    expect(counts).toEqual([
      { m: 'views', s: '2026-02-28', n: 5n },
      { m: 'visitors', s: '2026-02-28', n: 3n },
      { m: 'visitors', s: '2026-03-01', n: 4n },
    ]);
    expect(await db.all(`SELECT count(*) AS n FROM view_totals`)).toEqual([{ n: 2n }]);
    expect(await db.all(`SELECT warnings FROM loaded_windows WHERE metric = 'visitors' AND window_start = '2026-03-01'`)).toEqual([{ warnings: ['a, b', 'c'] }]);
    expect(await db.all(`SELECT DISTINCT run_id FROM loaded_windows`)).toEqual([{ run_id: 'run-2' }]);
  });

  it('stores flags on rows kept despite a broken invariant', async () => {
    await replaceWindow(db, load({ rows: [{ path: '/odd', human: 5, ai: 5, total: 11, flags: 'total_out_of_bounds' }], warnings: ['1 row total_out_of_bounds'] }));
    expect(await db.all('SELECT path, flags FROM flagged_rows')).toEqual([{ path: '/odd', flags: 'total_out_of_bounds' }]);
    expect(await db.all('SELECT warnings FROM loaded_windows')).toEqual([{ warnings: ['1 row total_out_of_bounds'] }]);
  });
});

describe('Database.open', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'docpipe-db-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('creates the file and its folder, and keeps data across opens', async () => {
    const path = join(dir, 'nested', 'x.duckdb');
    const db = await Database.open(path);
    await replaceWindow(db, load({ rows: rows(2) }));
    db.close();
    const again = await Database.open(path);
    const [row] = await again.all<{ n: bigint }>('SELECT count(*) AS n FROM page_visitors');
    expect(row?.n).toBe(2n);
    again.close();
  });
});
