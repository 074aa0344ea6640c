/**
 * Analytics windows in DuckDB. A window's rows, its totals and its bookkeeping row are
 * replaced together in one transaction, so a crash leaves every window wholly old or wholly
 * new; page rows go in through the appender in data chunks.
 *
 * The appender runs on the JavaScript thread, so it fills a narrow, unindexed temp table
 * (only what varies per row, counts as DOUBLE so no BigInt is made per value); one INSERT
 * ... SELECT then moves the rows into the keyed table on DuckDB's own threads, while the
 * next window is being fetched.
 */
import {
  BIGINT,
  DATE,
  DOUBLE,
  INTEGER,
  TIMESTAMPTZ,
  VARCHAR,
  dateValue,
  timestampTZValue,
  type DuckDBValue,
} from '@duckdb/node-api';
import type { Metric } from '../api/schemas.js';
import type { CheckedCounts, CheckedRow } from '../extract/row-quality.js';
import type { LoadedWindow } from '../extract/plan-export.js';
import { windowKey, type Window } from '../extract/windows.js';
import type { Database, Executor } from './database.js';

export const METRIC_TABLES = {
  visitors: { totals: 'visitor_totals', pages: 'page_visitors' },
  views: { totals: 'view_totals', pages: 'page_views' },
} as const satisfies Record<Metric, { totals: string; pages: string }>;


export interface WindowLoad {
  metric: Metric;
  projectId: string;
  window: Window;
  rows: readonly CheckedRow[];
  totals: CheckedCounts;
  fetchedAt: number;
  runId: string;
  pages: number;
  requests: number;
  walks: number;
  warnings: readonly string[];
}


export async function readLoadedWindows(
  db: Database,
  metric: Metric,
  projectId: string,
): Promise<Map<string, LoadedWindow>> {
  const rows = await db.all<{ start: string; end: string; fetched_ms: number | bigint }>(
    `SELECT strftime(window_start, '%Y-%m-%d') AS start, strftime(window_end, '%Y-%m-%d') AS "end",
            epoch_ms(fetched_at) AS fetched_ms
       FROM loaded_windows WHERE metric = $metric AND project_id = $project`,
    { metric, project: projectId },
  );
  return new Map(
    rows.map((r) => [windowKey(r), { start: r.start, end: r.end, fetchedAt: Number(r.fetched_ms) }]),
  );
}

/** Created per connection by sql/schema.sql. */
const STAGE_ROWS = 'docpipe_stage_rows';
const STAGE_WINDOWS = 'docpipe_stage_windows';
const ROW_TYPES = [INTEGER, VARCHAR, DOUBLE, DOUBLE, DOUBLE, VARCHAR] as const;
const WINDOW_TYPES = [
  INTEGER, VARCHAR, VARCHAR, DATE, DATE, DOUBLE, DOUBLE, DOUBLE, VARCHAR,
  TIMESTAMPTZ, VARCHAR, BIGINT, INTEGER, INTEGER, INTEGER, VARCHAR,
] as const;
const DAY_MS = 86_400_000;

const day = (iso: string): DuckDBValue => dateValue(Math.round(Date.parse(`${iso}T00:00:00Z`) / DAY_MS));

/**
 * Replaces a window: see replaceWindows.
 * @param alsoInTransaction more bookkeeping to commit with the window (the request log).
 */
export function replaceWindow(
  db: Database,
  load: WindowLoad,
  alsoInTransaction?: (tx: Executor) => Promise<void>,
): Promise<void> {
  return replaceWindows(db, [load], alsoInTransaction);
}

/**
 * Replaces one or more windows in one transaction: each window's rows, totals and
 * bookkeeping row replace its earlier copy, all or nothing. Several windows share a commit
 * when they arrive faster than DuckDB loads (group commit); each stays whole either way.
 */
export async function replaceWindows(
  db: Database,
  loads: readonly WindowLoad[],
  alsoInTransaction?: (tx: Executor) => Promise<void>,
): Promise<void> {
  if (loads.length === 0) return;
  const rows = loads.reduce((n, l) => n + l.rows.length, 0);
  const rowColumns: DuckDBValue[][] = [[], [], [], [], [], []];
  const [idx, path, human, ai, total, flags] = rowColumns as [DuckDBValue[], DuckDBValue[], DuckDBValue[], DuckDBValue[], DuckDBValue[], DuckDBValue[]];
  loads.forEach((load, i) => {
    for (const r of load.rows) {
      idx.push(i);
      path.push(r.path);
      human.push(r.human);
      ai.push(r.ai);
      total.push(r.total);
      flags.push(r.flags);
    }
  });
  const windowColumns: DuckDBValue[][] = [
    loads.map((_, i) => i),
    loads.map((l) => l.metric),
    loads.map((l) => l.projectId),
    loads.map((l) => day(l.window.start)),
    loads.map((l) => day(l.window.end)),
    loads.map((l) => l.totals.human),
    loads.map((l) => l.totals.ai),
    loads.map((l) => l.totals.total),
    loads.map((l) => l.totals.flags),
    loads.map((l) => timestampTZValue(BigInt(Math.round(l.fetchedAt)) * 1000n)),
    loads.map((l) => l.runId),
    loads.map((l) => BigInt(l.rows.length)),
    loads.map((l) => l.pages),
    loads.map((l) => l.requests),
    loads.map((l) => l.walks),
    loads.map((l) => JSON.stringify(l.warnings)),
  ];
  const metrics = [...new Set(loads.map((l) => l.metric))];

  await db.transaction(async (tx) => {
    await tx.run(`DELETE FROM ${STAGE_ROWS}`);
    await tx.run(`DELETE FROM ${STAGE_WINDOWS}`);
    if (rows > 0) await tx.append(STAGE_ROWS, ROW_TYPES, rowColumns);
    await tx.append(STAGE_WINDOWS, WINDOW_TYPES, windowColumns);
    for (const metric of metrics) {
      const tables = METRIC_TABLES[metric];
      const mine = `w.metric = '${metric}'`;
      await tx.run(
        `DELETE FROM ${tables.pages} p USING ${STAGE_WINDOWS} w
          WHERE ${mine} AND p.project_id = w.project_id AND p.window_start = w.window_start AND p.window_end = w.window_end`,
      );
      await tx.run(
        `INSERT INTO ${tables.pages}
         SELECT w.project_id, w.window_start, w.window_end, s.path, s.human::BIGINT, s.ai::BIGINT, s.total::BIGINT, w.run_id, s.flags
           FROM ${STAGE_ROWS} s JOIN ${STAGE_WINDOWS} w USING (idx) WHERE ${mine}`,
      );
      await tx.run(
        `INSERT OR REPLACE INTO ${tables.totals}
         SELECT project_id, window_start, window_end, human::BIGINT, ai::BIGINT, total::BIGINT, fetched_at, run_id, flags
           FROM ${STAGE_WINDOWS} w WHERE ${mine}`,
      );
    }
    await tx.run(
      `INSERT OR REPLACE INTO loaded_windows
       SELECT metric, project_id, window_start, window_end, fetched_at, run_id, row_count, pages, requests, walks,
              from_json(warnings, '["VARCHAR"]')
         FROM ${STAGE_WINDOWS}`,
    );
    await alsoInTransaction?.(tx);
  });
}
