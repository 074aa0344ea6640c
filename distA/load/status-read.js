/**
 * What `docpipe status` reads from the database: every loaded window with its row count,
 * and the last analytics run. Read-only, and no API request.
 */
import { hostname } from 'node:os';
import { METRICS } from '../core/domain.js';
import { isProcessAlive } from '../spool/spool.js';
import { runIsAlive } from './doctor.js';
import { runOwnerColumns } from './runs.js';
export async function readKnownWindows(db) {
    const rows = await db.all(`SELECT metric, project_id, strftime(window_start, '%Y-%m-%d') AS s, strftime(window_end, '%Y-%m-%d') AS e,
            epoch_ms(fetched_at) AS fetched_ms, row_count
       FROM loaded_windows`);
    return rows
        .filter((r) => METRICS.includes(r.metric))
        .map((r) => ({
        metric: r.metric,
        projectId: r.project_id,
        start: r.s,
        end: r.e,
        fetchedAt: Number(r.fetched_ms),
        rowCount: r.row_count === null ? null : Number(r.row_count),
    }));
}
/** The newest `export` or `sync` run. */
export async function readLastAnalyticsRun(db) {
    const owner = await runOwnerColumns(db);
    const [row] = await db.all(`SELECT run_id, command, strftime(started_at, '%Y-%m-%dT%H:%M:%SZ') AS started,
            strftime(finished_at, '%Y-%m-%dT%H:%M:%SZ') AS finished, status, exit_code, summary::VARCHAR AS summary, ${owner}
       FROM runs WHERE command LIKE 'export %' OR command LIKE 'sync %'
      ORDER BY started_at DESC, run_id DESC LIMIT 1`);
    if (!row)
        return null;
    const dead = row.status === 'running' && runIsAlive(row, { host: hostname(), isAlive: isProcessAlive }) === false;
    let summary;
    try {
        summary = row.summary === null ? null : JSON.parse(row.summary);
    }
    catch {
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
export async function readThreadBacklog(db) {
    const [tables] = await db.all(`SELECT count(*) AS n FROM duckdb_tables()
      WHERE database_name = current_database() AND schema_name = 'main'
        AND table_name IN ('assistant_conversations', 'assistant_messages')`);
    if (Number(tables?.n ?? 0) < 2)
        return { referenced: 0, fetched: 0 }; // written by a release before them
    const [row] = await db.all(`WITH r AS (SELECT DISTINCT project_id, thread_id FROM assistant_conversations WHERE thread_id IS NOT NULL)
     SELECT count(*) AS referenced,
            count(*) FILTER (WHERE EXISTS (SELECT 1 FROM assistant_messages m
                                            WHERE m.project_id = r.project_id AND m.thread_id = r.thread_id)) AS fetched
       FROM r`);
    return { referenced: Number(row?.referenced ?? 0), fetched: Number(row?.fetched ?? 0) };
}
//# sourceMappingURL=status-read.js.map