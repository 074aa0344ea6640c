/**
 * What `docpipe status` reads from the database: every loaded window with its row count,
 * and the last analytics run. Read-only, and no API request.
 */
import { METRICS, type Metric } from '../core/domain.js';
import type { KnownWindow } from '../extract/backlog.js';
import type { Executor } from './database.js';
import { conversationThreadSql } from './endpoint-store.js';
import { iso, runIsAlive } from './doctor.js';
import { liveness, spoolRootOf } from './doctor-io.js';
import { readRunEnds } from '../spool/run-ends.js';
import { runOwnerColumns } from './runs.js';

export async function readKnownWindows(db: Executor): Promise<KnownWindow[]> {
  const rows = await db.all<{ metric: string; project_id: string; s: string; e: string; fetched_ms: number | bigint; row_count: number | bigint | null }>(
    `SELECT metric, project_id, strftime(window_start, '%Y-%m-%d') AS s, strftime(window_end, '%Y-%m-%d') AS e,
            epoch_ms(fetched_at) AS fetched_ms, row_count
       FROM loaded_windows`,
  );
  return rows
    .filter((r) => (METRICS as readonly string[]).includes(r.metric))
    .map((r) => ({
      metric: r.metric as Metric,
      projectId: r.project_id,
      start: r.s,
      end: r.e,
      fetchedAt: Number(r.fetched_ms),
      rowCount: r.row_count === null ? null : Number(r.row_count),
    }));
}

export interface LastRun {
  runId: string;
  command: string | null;
  startedAt: string | null;
  finishedAt: string | null;
  /** As recorded; `running` whose process is gone reads `crashed`. */
  status: string | null;
  exitCode: number | null;
  summary: unknown;
}

/** The newest `export` or `sync` run. */
export async function readLastAnalyticsRun(db: Executor): Promise<LastRun | null> {
  const owner = await runOwnerColumns(db);
  const [row] = await db.all<{
    run_id: string;
    command: string | null;
    started: string | null;
    finished: string | null;
    status: string | null;
    exit_code: number | null;
    summary: string | null;
    pid: number | null;
    host: string | null;
    process_start: string | null;
    started_ms: number | bigint | null;
  }>(
    `SELECT run_id, command, strftime(started_at, '%Y-%m-%dT%H:%M:%SZ') AS started, epoch_ms(started_at) AS started_ms,
            strftime(finished_at, '%Y-%m-%dT%H:%M:%SZ') AS finished, status, exit_code, summary::VARCHAR AS summary, ${owner}
       FROM runs WHERE command LIKE 'export %' OR command LIKE 'sync %'
      ORDER BY started_at DESC, run_id DESC LIMIT 1`,
  );
  if (!row) return null;
  // A run that ended while the file was held kept its end in the spool, for the next run to record.
  const kept = row.status === 'running' ? readRunEnds(await spoolRootOf(db)).get(row.run_id) : undefined;
  if (kept) {
    return { runId: row.run_id, command: row.command, startedAt: row.started, finishedAt: iso(kept.finishedAt), status: kept.status, exitCode: kept.exitCode, summary: kept.summary };
  }
  const dead = row.status === 'running' && runIsAlive(row, await liveness(db)) === false;
  let summary: unknown;
  try {
    summary = row.summary === null ? null : (JSON.parse(row.summary) as unknown);
  } catch {
    summary = row.summary;
  }
  return {
    runId: row.run_id,
    command: row.command,
    startedAt: row.started,
    finishedAt: row.finished,
    status: dead ? 'crashed' : row.status,
    exitCode: row.exit_code,
    summary,
  };
}

/** Threads the loaded assistant conversations reference, and how many are fetched (`--threads`). */
export async function readThreadBacklog(db: Executor): Promise<{ referenced: number; fetched: number }> {
  const [tables] = await db.all<{ n: bigint }>(
    `SELECT count(*) AS n FROM duckdb_tables()
      WHERE database_name = current_database() AND schema_name = 'main'
        AND table_name IN ('assistant_conversations', 'assistant_threads')`,
  );
  if (Number(tables?.n ?? 0) < 2) return { referenced: 0, fetched: 0 }; // written by a release before them
  const [row] = await db.all<{ referenced: bigint; fetched: bigint }>(
    `WITH r AS (SELECT project_id, ${conversationThreadSql()} AS thread_id, max(window_end) AS ends FROM assistant_conversations GROUP BY ALL)
     SELECT count(*) AS referenced,
            -- one fetched before its conversation's window ended is fetched again (run-threads.ts)
            count(*) FILTER (WHERE EXISTS (SELECT 1 FROM assistant_threads t
                                            WHERE t.project_id = r.project_id AND t.thread_id = r.thread_id
                                              AND coalesce(t.fetched_at >= r.ends::TIMESTAMPTZ, true))) AS fetched
       FROM r`,
  );
  return { referenced: Number(row?.referenced ?? 0), fetched: Number(row?.fetched ?? 0) };
}
