/**
 * An export's loads and DuckDB's row groups (window-store's vacuumSql): the loads of a fast
 * run, back to back, leave each other's part-filled row groups unmerged (merged, they were
 * rewritten load after load and the freed blocks stayed in the file); a load after a pause
 * merges them.
 */
import { appendFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { addDays } from '../../src/extract/windows.js';
import { Spool, spoolDirFor } from '../../src/spool/spool.js';
import { logLines, queryDb, startHarness, summaryOf, type Harness } from './harness.js';

const NOW = '2026-09-01T06:00:00Z';
const FIRST = '2026-01-01';
/** Two loads of 64 walks (the loader's most) and one of a single walk. */
const WALKS = 129;
const ROWS = 2_000;

/** Spools WALKS completed daily walks of ROWS visitors each, from FIRST, as a run killed before its loads leaves them. */
function spoolCompletedWalks(db: string): void {
  const spool = new Spool(spoolDirFor(db));
  const totals = { human: 3 * ROWS, ai: ROWS, total: 4 * ROWS };
  const pages = ROWS / 250;
  for (let d = 0; d < WALKS; d++) {
    const window = { start: addDays(FIRST, d), end: addDays(FIRST, d + 1) };
    const walk = spool.walk({ metric: 'visitors', projectId: 'docs' }, window);
    walk.begin({ walk: 1, startedAt: 0, pagesBefore: 0, requestsBefore: 0 });
    for (let p = 0; p < pages; p++) {
      const visitors = Array.from({ length: 250 }, (_, i) => ({ path: `/page-${p * 250 + i}`, human: 3, ai: 1, total: 4 }));
      walk.writePage(p, JSON.stringify({ totals, visitors, hasMore: p < pages - 1 }));
    }
    walk.complete({
      metric: 'visitors',
      projectId: 'docs',
      window,
      fetchedAt: Date.parse(NOW) - 3_600_000,
      runId: 'killed-run',
      totals,
      rows: ROWS,
      pages,
      requests: pages,
      walks: 1,
      warnings: [],
      repeatedPaths: false,
    });
    appendFileSync(walk.pagesFile, `${JSON.stringify({ owner: { pid: 999_999, host: hostname() } })}\n`);
  }
}

describe('an export and the row groups of its loads', () => {
  let h: Harness;
  beforeEach(async () => {
    h = await startHarness(NOW, { site: { paths: 50 } });
  });
  afterEach(async () => {
    await h.close();
  });

  const rowGroups = async (db: string): Promise<number[]> =>
    (await queryDb<{ n: bigint }>({ db }, `SELECT max(count) AS n FROM pragma_storage_info('page_visitors') GROUP BY row_group_id ORDER BY row_group_id`)).map(
      (r) => Number(r.n),
    );

  /** Loads the spooled walks into `db` (no request); `pause` lets a minute pass after each window loaded. */
  async function loadAll(db: string, pause: boolean): Promise<void> {
    spoolCompletedWalks(db);
    const result = await h.run(['export', 'visitors', '--project', 'docs', '--from', FIRST, '--to', addDays(FIRST, WALKS), '--db', db], {
      onStderr: (text) => {
        if (pause && text.includes('"window loaded"')) h.clock.advance(60_000);
      },
    });
    expect(result.code, result.stderr).toBe(0);
    expect(summaryOf(result)).toMatchObject({ windowsFromSpool: WALKS, windowsLoaded: WALKS, requests: 0 });
    expect(logLines(result).filter((l) => l.event === 'window loaded')).toHaveLength(WALKS);
  }

  it('leaves the part-filled row groups of loads back to back unmerged, and merges them in a load after a pause', async () => {
    // Loads of 128,000, 128,000 and 2,000 rows, one right after the other: each big one leaves
    // a full row group and 5,120 rows; the last appends its own.
    const fast = join(h.dir, 'fast.duckdb');
    await loadAll(fast, false);
    expect(await rowGroups(fast)).toEqual([122_880, 5_120, 122_880, 5_120, 2_000]);

    // The same loads a minute apart: the last one merges the part-filled groups into fewer.
    const slow = join(h.dir, 'slow.duckdb');
    await loadAll(slow, true);
    const groups = await rowGroups(slow);
    expect(groups.length).toBeLessThan(5);
    expect(groups.reduce((a, b) => a + b, 0)).toBe(WALKS * ROWS);
  });
});
