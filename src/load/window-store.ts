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
import { DOUBLE, VARCHAR, type DuckDBValue } from '@duckdb/node-api';
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
const STAGE_TABLE = 'docpipe_stage_rows';
const STAGE_TYPES = [VARCHAR, DOUBLE, DOUBLE, DOUBLE, VARCHAR] as const;

/**
 * @param alsoInTransaction more bookkeeping to commit with the window (the request log).
 */
export async function replaceWindow(
  db: Database,
  load: WindowLoad,
  alsoInTransaction?: (tx: Executor) => Promise<void>,
): Promise<void> {
  const tables = METRIC_TABLES[load.metric];
  const key = { project: load.projectId, start: load.window.start, end: load.window.end };
  const n = load.rows.length;
  const fetchedAt = new Date(load.fetchedAt).toISOString();
  const columns: DuckDBValue[][] = [
    load.rows.map((r) => r.path),
    load.rows.map((r) => r.human),
    load.rows.map((r) => r.ai),
    load.rows.map((r) => r.total),
    load.rows.map((r) => r.flags),
  ];
  const where = `project_id = $project AND window_start = $start::DATE AND window_end = $end::DATE`;

  await db.transaction(async (tx) => {
    await tx.run(`DELETE FROM ${STAGE_TABLE}`);
    await tx.append(STAGE_TABLE, STAGE_TYPES, columns);
    await tx.run(`DELETE FROM ${tables.pages} WHERE ${where}`, key);
    await tx.run(
      `INSERT INTO ${tables.pages}
       SELECT $project, $start::DATE, $end::DATE, path, human::BIGINT, ai::BIGINT, total::BIGINT, $run, flags
         FROM ${STAGE_TABLE}`,
      { ...key, run: load.runId },
    );
    await tx.run(
      `INSERT OR REPLACE INTO ${tables.totals} VALUES ($project, $start::DATE, $end::DATE, $human, $ai, $total,
         $fetched::TIMESTAMPTZ, $run, $flags)`,
      {
        ...key,
        human: BigInt(load.totals.human),
        ai: BigInt(load.totals.ai),
        total: BigInt(load.totals.total),
        fetched: fetchedAt,
        run: load.runId,
        flags: load.totals.flags,
      },
    );
    await tx.run(
      `INSERT OR REPLACE INTO loaded_windows VALUES ($metric, $project, $start::DATE, $end::DATE,
         $fetched::TIMESTAMPTZ, $run, $rows, $pages, $requests, $walks, $warnings::VARCHAR[])`,
      {
        ...key,
        metric: load.metric,
        fetched: fetchedAt,
        run: load.runId,
        rows: BigInt(n),
        pages: load.pages,
        requests: load.requests,
        walks: load.walks,
        warnings: JSON.stringify(load.warnings),
      },
    );
    await alsoInTransaction?.(tx);
  });
}
