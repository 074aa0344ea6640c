/**
 * The request log: every HTTP attempt, and the request budget's memory across runs.
 *
 * Attempts are buffered and written in bulk: by an export inside each window's load
 * transaction (so the log is part of the window's bookkeeping, and costs no extra commit),
 * and by `flush()` at the end of a run or after every attempt when `autoFlush` is on.
 */
import { INTEGER, TIMESTAMPTZ, VARCHAR, timestampTZValue, type DuckDBValue } from '@duckdb/node-api';
import type { RequestHistory } from '../api/request-budget.js';
import type { Database, Executor } from './database.js';

export interface LoggedRequest {
  scope: string;
  method: string;
  path: string;
  status: number;
  startedAt: number;
  durationMs: number;
  runId: string;
}

const TYPES = [TIMESTAMPTZ, VARCHAR, VARCHAR, VARCHAR, INTEGER, INTEGER, VARCHAR] as const;

export class RequestLog implements RequestHistory {
  private pending: LoggedRequest[] = [];

  /**
   * @param autoFlush write every attempt at once (jobs); off for exports, which flush in
   *   each window's transaction. @default true
   */
  constructor(
    private readonly db: Database,
    private readonly autoFlush = true,
  ) {}

  async record(request: LoggedRequest): Promise<void> {
    this.pending.push(request);
    if (this.autoFlush) await this.flush();
  }

  /** Writes the buffered attempts through `executor` (a transaction), or on its own. */
  async flush(executor: Executor = this.db): Promise<void> {
    if (this.pending.length === 0) return;
    const batch = this.pending;
    this.pending = [];
    const columns: DuckDBValue[][] = [
      batch.map((r) => timestampTZValue(BigInt(Math.round(r.startedAt)) * 1000n)),
      batch.map((r) => r.scope),
      batch.map((r) => r.method),
      batch.map((r) => r.path),
      batch.map((r) => r.status),
      batch.map((r) => Math.round(r.durationMs)),
      batch.map((r) => r.runId),
    ];
    try {
      await executor.append('request_log', TYPES, columns);
    } catch (error) {
      this.pending = [...batch, ...this.pending]; // a rolled-back window keeps its log for the next flush
      throw error;
    }
  }

  async requestTimes(scope: string, sinceMs: number): Promise<number[]> {
    const rows = await this.db.all<{ ms: number | bigint }>(
      `SELECT epoch_ms(started_at) AS ms FROM request_log
        WHERE scope = $scope AND started_at > $since::TIMESTAMPTZ`,
      { scope, since: new Date(sinceMs).toISOString() },
    );
    const buffered = this.pending.filter((r) => r.scope === scope && r.startedAt > sinceMs).map((r) => r.startedAt);
    return [...rows.map((r) => Number(r.ms)), ...buffered];
  }
}
