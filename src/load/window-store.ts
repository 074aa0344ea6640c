/**
 * Analytics windows in DuckDB. A window's rows, its totals and its bookkeeping row are
 * replaced together in one transaction, so a crash leaves every window wholly old or wholly
 * new; page rows go in through the appender in data chunks.
 */
import { BIGINT, DATE, VARCHAR, dateValue, type DuckDBValue } from '@duckdb/node-api';
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


const DAY_MS = 86_400_000;

function toDate(day: string): DuckDBValue {
  return dateValue(Math.round(Date.parse(`${day}T00:00:00Z`) / DAY_MS));
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

const PAGE_TYPES = [VARCHAR, DATE, DATE, VARCHAR, BIGINT, BIGINT, BIGINT, VARCHAR, VARCHAR] as const;

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
  const start = toDate(load.window.start);
  const end = toDate(load.window.end);
  const fetchedAt = new Date(load.fetchedAt).toISOString();
  const columns: DuckDBValue[][] = [
    new Array<DuckDBValue>(n).fill(load.projectId),
    new Array<DuckDBValue>(n).fill(start),
    new Array<DuckDBValue>(n).fill(end),
    load.rows.map((r) => r.path),
    load.rows.map((r) => BigInt(r.human)),
    load.rows.map((r) => BigInt(r.ai)),
    load.rows.map((r) => BigInt(r.total)),
    new Array<DuckDBValue>(n).fill(load.runId),
    load.rows.map((r) => r.flags),
  ];
  const where = `project_id = $project AND window_start = $start::DATE AND window_end = $end::DATE`;

  await db.transaction(async (tx) => {
    await tx.run(`DELETE FROM ${tables.pages} WHERE ${where}`, key);
    await tx.append(tables.pages, PAGE_TYPES, columns);
    await tx.run(`DELETE FROM ${tables.totals} WHERE ${where}`, key);
    await tx.run(
      `INSERT INTO ${tables.totals} VALUES ($project, $start::DATE, $end::DATE, $human, $ai, $total,
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
