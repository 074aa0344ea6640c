import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ApiRow, Counts, Metric, Window } from '../../src/core/domain.js';
import { DatabaseError } from '../../src/core/errors.js';
import { Database } from '../../src/load/database.js';
import { flagsSql, loadWindows, readLoadedWindows, type LoadOptions, type WindowLoad } from '../../src/load/window-store.js';
import { Spool } from '../../src/spool/spool.js';

const window = { start: '2026-02-28', end: '2026-03-01' };
const rows = (n: number, base = 1): ApiRow[] =>
  Array.from({ length: n }, (_, i) => ({ path: `/page-${i}`, human: base + i, ai: 1, total: base + i }));

interface Spec {
  metric?: Metric;
  window?: Window;
  rows?: ApiRow[];
  totals?: Counts;
  runId?: string;
  warnings?: string[];
  repeatedPaths?: boolean;
  /** Raw page bodies instead of rows. */
  bodies?: string[];
}

describe('loadWindows', () => {
  let dir: string;
  let spool: Spool;
  let db: Database;
  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'docpipe-load-'));
    spool = new Spool(join(dir, 'spool'));
    db = await Database.open(join(dir, 'test.duckdb'));
  });
  afterEach(() => {
    db.close();
    rmSync(dir, { recursive: true, force: true });
  });

  /** Spools a walk's pages (250 rows a page, as the API sends them) and describes it for the loader. */
  function spooled(spec: Spec = {}): WindowLoad {
    const metric = spec.metric ?? 'visitors';
    const w = spec.window ?? window;
    const all = spec.rows ?? rows(3000);
    const totals = spec.totals ?? { human: 100, ai: 10, total: 105 };
    const walk = spool.walk({ metric, projectId: 'proj' }, w);
    walk.begin({ walk: 1, startedAt: 0, pagesBefore: 0, requestsBefore: 0 });
    const bodies = spec.bodies ?? [];
    if (!spec.bodies) {
      for (let offset = 0; offset === 0 || offset < all.length; offset += 250) {
        bodies.push(JSON.stringify({ totals, [metric]: all.slice(offset, offset + 250), hasMore: offset + 250 < all.length }));
      }
    }
    bodies.forEach((body, i) => walk.writePage(i, body));
    return {
      walk: {
        metric,
        projectId: 'proj',
        window: w,
        fetchedAt: Date.parse('2026-03-05T01:00:00Z'),
        runId: spec.runId ?? 'run-1',
        totals,
        rows: new Set(all.map((r) => r.path)).size,
        pages: bodies.length,
        requests: bodies.length,
        walks: 1,
        warnings: spec.warnings ?? [],
        repeatedPaths: spec.repeatedPaths ?? false,
      },
      file: walk.pagesFile,
    };
  }

  const load = (...loads: WindowLoad[]) => db.transaction((tx) => loadWindows(tx, loads));

  it('loads rows, totals and bookkeeping from the spooled pages (more rows than one page)', async () => {
    await load(spooled());
    const [count] = await db.all<{ n: bigint; sum: bigint }>('SELECT count(*) AS n, sum(human) AS sum FROM page_visitors');
    expect(count?.n).toBe(3000n);
    expect(count?.sum).toBe(BigInt((3000 * 3001) / 2));
    const totals = await db.all(`SELECT project_id, strftime(window_start, '%Y-%m-%d') AS s, strftime(window_end, '%Y-%m-%d') AS e, human, ai, total, run_id FROM visitor_totals`);
    expect(totals).toEqual([{ project_id: 'proj', s: '2026-02-28', e: '2026-03-01', human: 100n, ai: 10n, total: 105n, run_id: 'run-1' }]);
    const loaded = await readLoadedWindows(db, 'visitors', 'proj');
    expect(loaded.get('2026-02-28/2026-03-01')).toEqual({ ...window, fetchedAt: Date.parse('2026-03-05T01:00:00Z') });
    expect(await db.all(`SELECT row_count, pages FROM loaded_windows`)).toEqual([{ row_count: 3000n, pages: 12 }]);
    expect(await readLoadedWindows(db, 'views', 'proj')).toEqual(new Map());
  });

  it('replaces an earlier copy of the window and nothing else', async () => {
    await load(spooled());
    const other = { start: '2026-02-27', end: '2026-02-28' };
    await load(spooled({ window: other, rows: rows(5) }));
    await load(spooled({ rows: rows(10, 7), runId: 'run-2' }));
    const counts = await db.all<{ s: string; n: bigint }>(
      `SELECT strftime(window_start, '%Y-%m-%d') AS s, count(*) AS n FROM page_visitors GROUP BY ALL ORDER BY s`,
    );
    expect(counts).toEqual([{ s: '2026-02-27', n: 5n }, { s: '2026-02-28', n: 10n }]);
    const runs = await db.all(`SELECT DISTINCT run_id FROM page_visitors WHERE window_start = '2026-02-28'`);
    expect(runs).toEqual([{ run_id: 'run-2' }]);
  });

  it('replaces a window whose loaded_windows row was deleted by hand (its rows and totals row), and a new window beside it goes in plainly', async () => {
    await load(spooled());
    await db.run(`DELETE FROM loaded_windows`);
    const other = { start: '2026-03-01', end: '2026-03-02' };
    await load(spooled({ rows: rows(4), totals: { human: 7, ai: 1, total: 7 }, runId: 'run-2' }), spooled({ window: other, rows: rows(2), runId: 'run-2' }));
    expect(await db.all(`SELECT strftime(window_start, '%Y-%m-%d') AS s, human, run_id FROM visitor_totals ORDER BY s`)).toEqual([
      { s: '2026-02-28', human: 7n, run_id: 'run-2' },
      { s: '2026-03-01', human: 100n, run_id: 'run-2' },
    ]);
    expect(await db.all(`SELECT strftime(window_start, '%Y-%m-%d') AS s, row_count FROM loaded_windows ORDER BY s`)).toEqual([
      { s: '2026-02-28', row_count: 4n },
      { s: '2026-03-01', row_count: 2n },
    ]);
    // The grain stays unique: the window's 3,000 earlier rows went with its totals row.
    expect(await db.all(`SELECT strftime(window_start, '%Y-%m-%d') AS s, count(*) AS n, count(DISTINCT path) AS paths FROM page_visitors GROUP BY ALL ORDER BY s`)).toEqual([
      { s: '2026-02-28', n: 4n, paths: 4n },
      { s: '2026-03-01', n: 2n, paths: 2n },
    ]);
    // Loaded again, both are replaced (their loaded_windows rows are there now).
    await load(spooled({ rows: rows(3), runId: 'run-3' }), spooled({ window: other, rows: rows(1), runId: 'run-3' }));
    expect(await db.all(`SELECT count(*) AS n, count(DISTINCT run_id) AS runs FROM visitor_totals`)).toEqual([{ n: 2n, runs: 1n }]);
    expect(await db.all(`SELECT sum(row_count) AS n FROM loaded_windows`)).toEqual([{ n: 4n }]);
  });

  it('replaces the rows of a window whose loaded_windows and totals rows were both deleted by hand', async () => {
    await load(spooled({ rows: rows(5) }), spooled({ window: { start: '2026-03-01', end: '2026-03-02' }, rows: rows(3) }));
    await db.run(`DELETE FROM loaded_windows WHERE window_start = '2026-02-28'`);
    await db.run(`DELETE FROM visitor_totals WHERE window_start = '2026-02-28'`);
    await load(spooled({ rows: rows(5), runId: 'run-2' }));
    expect(await db.all(`SELECT strftime(window_start, '%Y-%m-%d') AS s, count(*) AS n, count(DISTINCT path) AS paths, max(run_id) AS run FROM page_visitors GROUP BY ALL ORDER BY s`)).toEqual([
      { s: '2026-02-28', n: 5n, paths: 5n, run: 'run-2' },
      { s: '2026-03-01', n: 3n, paths: 3n, run: 'run-1' },
    ]);
  });

  it('keeps the previous copy intact when a load fails half-way', async () => {
    await load(spooled());
    // The second page holds a count DuckDB cannot read as a number.
    const good = JSON.stringify({ totals: { human: 1, ai: 1, total: 1 }, visitors: rows(250, 50), hasMore: true });
    const bad = JSON.stringify({ totals: { human: 1, ai: 1, total: 1 }, visitors: [{ path: '/x', human: 'many', ai: 1, total: 1 }], hasMore: false });
    await expect(load(spooled({ bodies: [good, bad], runId: 'run-bad' }))).rejects.toThrow(DatabaseError);
    const [state] = await db.all<{ n: bigint; runs: bigint }>('SELECT count(*) AS n, count(DISTINCT run_id) AS runs FROM page_visitors');
    expect(state).toEqual({ n: 3000n, runs: 1n });
    expect(await db.all('SELECT human, run_id FROM visitor_totals')).toEqual([{ human: 100n, run_id: 'run-1' }]);
    // The connection is usable again afterwards.
    await load(spooled({ rows: rows(4), runId: 'run-3' }));
    const [after] = await db.all<{ n: bigint }>('SELECT count(*) AS n FROM page_visitors');
    expect(after?.n).toBe(4n);
  });

  it('loads several windows of both metrics in one transaction, each replacing only itself', async () => {
    const other = { start: '2026-03-01', end: '2026-03-02' };
    await load(spooled({ rows: rows(7) }));
    await load(
      spooled({ rows: rows(3), runId: 'run-2' }),
      spooled({ window: other, rows: rows(4), runId: 'run-2', warnings: ['a, b', 'c'] }),
      spooled({ metric: 'views', rows: rows(5), runId: 'run-2' }),
      spooled({ window: other, rows: [], runId: 'run-2', metric: 'views' }),
    );
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

  it('flags rows in SQL, keeps them, and counts the flags in the window warnings', async () => {
    const odd: ApiRow[] = [
      { path: '/ok', human: 3, ai: 2, total: 4 },
      { path: '/over', human: 5, ai: 5, total: 11 },
      { path: '/under', human: 5, ai: 1, total: 4 },
      { path: '/half', human: 3.4, ai: 2, total: 4 },
    ];
    const result = await load(spooled({ rows: odd, totals: { human: 1, ai: 1, total: 3 }, warnings: ['drift'] }));
    expect(await db.all('SELECT path, human, flags FROM flagged_rows ORDER BY path')).toEqual([
      { path: '/half', human: 3n, flags: 'non_integral' },
      { path: '/over', human: 5n, flags: 'total_out_of_bounds' },
      { path: '/under', human: 5n, flags: 'total_out_of_bounds' },
    ]);
    const expected = ['drift', '1 row non_integral', '2 rows total_out_of_bounds', 'totals total_out_of_bounds'];
    expect(await db.all('SELECT warnings FROM loaded_windows')).toEqual([{ warnings: expected }]);
    expect([...result.values()]).toEqual([expected]);
    expect(await db.all('SELECT flags FROM visitor_totals')).toEqual([{ flags: 'total_out_of_bounds' }]);
  });

  it('stores counts beyond 64 bits, infinite or null as NULL with a flag, and still loads the window', async () => {
    // Raw text, as the API would send it: JSON.parse reads 1e400 as Infinity.
    const body =
      '{"totals":{"human":1e400,"ai":null,"total":5},"visitors":[' +
      '{"path":"/huge","human":18446744073709551616,"ai":1,"total":2},' +
      '{"path":"/inf","human":1,"ai":-1e400,"total":1},' +
      '{"path":"/null","human":null,"ai":1,"total":1},' +
      '{"path":"/ok","human":2,"ai":1,"total":2}],"hasMore":false}';
    const parsed = JSON.parse(body) as { totals: Counts };
    const result = await load(spooled({ bodies: [body], totals: parsed.totals }));
    expect(await db.all('SELECT path, human, ai, total, flags FROM page_visitors ORDER BY path')).toEqual([
      { path: '/huge', human: null, ai: 1n, total: 2n, flags: 'count_out_of_range' },
      { path: '/inf', human: 1n, ai: null, total: 1n, flags: 'count_out_of_range' },
      { path: '/null', human: null, ai: 1n, total: 1n, flags: 'count_missing' },
      { path: '/ok', human: 2n, ai: 1n, total: 2n, flags: null },
    ]);
    expect(await db.all('SELECT human, ai, total, flags FROM visitor_totals')).toEqual([
      { human: null, ai: null, total: 5n, flags: 'count_missing,count_out_of_range' },
    ]);
    expect([...result.values()]).toEqual([
      ['1 row count_missing', '2 rows count_out_of_range', 'totals count_missing,count_out_of_range'],
    ]);
  });

  it.each([
    ['LF', '\n'],
    ['CRLF', '\r\n'],
  ])('a page laid out on several lines (%s) keeps its numbers as sent: 1e400 is out of range, not missing', async (_name, eol) => {
    const body = ['{"totals": {"human": 1e400, "ai": 1, "total": 5},', '"visitors": [', '{"path": "/inf", "human": 1e400, "ai": 1, "total": 2},',
      '{"path": "/ok", "human": 2, "ai": 1, "total": 2}', '], "hasMore": false}'].join(eol);
    const parsed = JSON.parse(body) as { totals: Counts };
    const result = await load(spooled({ bodies: [body], totals: parsed.totals }));
    expect(await db.all('SELECT path, human, flags FROM page_visitors ORDER BY path')).toEqual([
      { path: '/inf', human: null, flags: 'count_out_of_range' },
      { path: '/ok', human: 2n, flags: null },
    ]);
    expect([...result.values()]).toEqual([['1 row count_out_of_range', 'totals count_out_of_range']]);
  });

  it('flags infinite totals the same when the walk is loaded from the spool after a crash', async () => {
    const body = '{"totals":{"human":1e400,"ai":-1e400,"total":5},"visitors":[{"path":"/ok","human":2,"ai":1,"total":2}],"hasMore":false}';
    const fresh = spooled({ bodies: [body], totals: (JSON.parse(body) as { totals: Counts }).totals, rows: [{ path: '/ok', human: 2, ai: 1, total: 2 }] });
    // The walk's done line as a crash leaves it, read back by the next run.
    const walk = spool.walk({ metric: 'visitors', projectId: 'proj' }, window);
    walk.complete(fresh.walk);
    const recovered = walk.completed();
    expect(recovered?.totals).toEqual({ human: Infinity, ai: -Infinity, total: 5 });
    await load({ walk: recovered!, file: fresh.file });
    expect(await db.all('SELECT human, ai, total, flags FROM visitor_totals')).toEqual([{ human: null, ai: null, total: 5n, flags: 'count_out_of_range' }]);
  });

  it('keeps the first copy of a path when the walk saw it twice', async () => {
    const first = JSON.stringify({ totals: { human: 1, ai: 0, total: 1 }, visitors: [{ path: '/a', human: 1, ai: 0, total: 1 }, { path: '/b', human: 2, ai: 0, total: 2 }], hasMore: true });
    const second = JSON.stringify({ totals: { human: 1, ai: 0, total: 1 }, visitors: [{ path: '/b', human: 9, ai: 0, total: 9 }, { path: '/c', human: 3, ai: 0, total: 3 }], hasMore: false });
    const loadSpec = spooled({ bodies: [first, second], repeatedPaths: true });
    await load(loadSpec);
    expect(await db.all('SELECT path, human FROM page_visitors ORDER BY path')).toEqual([
      { path: '/a', human: 1n },
      { path: '/b', human: 2n },
      { path: '/c', human: 3n },
    ]);
  });

  describe('row groups (writes checkpointed at each commit, as a run\'s are)', () => {
    let groups: Database;
    beforeEach(async () => {
      groups = await Database.open(join(dir, 'groups.duckdb'), { checkpointEachCommit: true });
    });
    afterEach(async () => {
      await groups.close();
    });

    const day = (i: number): Window => {
      const at = (d: number): string => new Date(Date.UTC(2026, 0, 1 + d)).toISOString().slice(0, 10);
      return { start: at(i), end: at(i + 1) };
    };
    /** The rows of each row group of page_visitors, in order. */
    const rowGroups = async (): Promise<number[]> =>
      (await groups.all<{ n: bigint }>(`SELECT max(count) AS n FROM pragma_storage_info('page_visitors') GROUP BY row_group_id ORDER BY row_group_id`)).map(
        (r) => Number(r.n),
      );
    /** One write of `count` daily windows of `size` rows from day `first`. */
    const write = (first: number, count: number, size: number, options: LoadOptions = {}) =>
      groups.transaction((tx) => loadWindows(tx, Array.from({ length: count }, (_, i) => spooled({ window: day(first + i), rows: rows(size) })), options));
    const total = async (): Promise<number> => (await rowGroups()).reduce((a, b) => a + b, 0);

    it('leaves the row groups of a write that appends a row group or more unmerged, and merges after a small write', async () => {
      // Two writes of 126,000 rows (21 windows of 6,000): a full row group and 3,120 rows each.
      // Merged, the four would be three (one rewritten); left alone, they stay four.
      await write(0, 21, 6000);
      await write(21, 21, 6000);
      expect(await rowGroups()).toHaveLength(4);
      // A small write (a nightly sync's) is merged into its neighbours as usual.
      await write(42, 1, 100);
      expect((await rowGroups()).length).toBeLessThan(5);
      expect(await total()).toBe(252_100);
    });

    it('leaves a small write back to back with the one before unmerged, for the next write after a pause to merge', async () => {
      // A fast run's loads: a row group and 3,120 rows, twice, then 90,000 rows.
      await write(0, 21, 6000, { backToBack: true });
      await write(21, 21, 6000, { backToBack: true });
      await write(42, 15, 6000, { backToBack: true });
      // Merged, the part-filled groups would be rewritten into fewer; back to back, they stay.
      expect(await rowGroups()).toEqual([122_880, 3_120, 122_880, 3_120, 90_000]);
      // The next small write after a pause (a nightly sync's) merges them.
      await write(57, 1, 100);
      expect((await rowGroups()).length).toBeLessThan(6);
      expect(await total()).toBe(342_100);
    });
  });
});

describe('flagsSql', () => {
  it.each([
    [3, 2, 4, null],
    [3, 0, 3, null],
    [3, 2, 5, null],
    [3, 2, 2, 'total_out_of_bounds'],
    [3, 2, 6, 'total_out_of_bounds'],
    [3.4, 2, 4, 'non_integral'],
    [2.5, 1, 3, 'non_integral'],
    [-1, 2, 2, 'negative,total_out_of_bounds'],
    [1e19, 2, 3, 'count_out_of_range'],
    [9.2e18, 0, 9.2e18, null],
    ['inf', 1, 1, 'count_out_of_range'],
    [null, 1, 1, 'count_missing'],
  ])('human %s, ai %d, total %s -> %s', async (h, a, t, flags) => {
    const db = await Database.open(':memory:');
    const lit = (x: number | string | null): string => (x === null ? 'NULL::DOUBLE' : `'${x}'::DOUBLE`);
    try {
      const [row] = await db.all(`SELECT ${flagsSql('h', 'a', 't')} AS flags FROM (VALUES (${lit(h)}, ${lit(a)}, ${lit(t)})) v(h, a, t)`);
      expect(row?.flags).toBe(flags);
    } finally {
      db.close();
    }
  });
});

describe('Database.open', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'docpipe-db-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('creates the file and its folder, keeps data across opens, and shares one handle per file', async () => {
    const path = join(dir, 'nested', 'x.duckdb');
    const db = await Database.open(path);
    const second = await Database.open(path);
    await db.run(`INSERT INTO runs (run_id, command) VALUES ('r1', 'test')`);
    expect(await second.all('SELECT run_id FROM runs')).toEqual([{ run_id: 'r1' }]);
    db.close();
    second.close();
    const again = await Database.open(path, { readOnly: true });
    expect(await again.all('SELECT run_id FROM runs')).toEqual([{ run_id: 'r1' }]);
    again.close();
  });

  it('refuses to open a missing file read-only, naming it', async () => {
    await expect(Database.open(join(dir, 'typo.duckdb'), { readOnly: true })).rejects.toThrow(/database '.*typo\.duckdb' does not exist/);
  });
});
