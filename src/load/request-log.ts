/** The request log: every HTTP attempt, and the request budget's memory across runs. */
import type { RequestHistory } from '../api/request-budget.js';
import type { Database } from './database.js';

export interface LoggedRequest {
  scope: string;
  method: string;
  path: string;
  status: number;
  startedAt: number;
  durationMs: number;
  runId: string;
}

export class RequestLog implements RequestHistory {
  constructor(private readonly db: Database) {}

  async record(request: LoggedRequest): Promise<void> {
    await this.db.run(
      `INSERT INTO request_log VALUES ($at::TIMESTAMPTZ, $scope, $method, $path, $status, $ms, $run)`,
      {
        at: new Date(request.startedAt).toISOString(),
        scope: request.scope,
        method: request.method,
        path: request.path,
        status: request.status,
        ms: Math.round(request.durationMs),
        run: request.runId,
      },
    );
  }

  async requestTimes(scope: string, sinceMs: number): Promise<number[]> {
    const rows = await this.db.all<{ ms: number | bigint }>(
      `SELECT epoch_ms(started_at) AS ms FROM request_log
        WHERE scope = $scope AND started_at > $since::TIMESTAMPTZ`,
      { scope, since: new Date(sinceMs).toISOString() },
    );
    return rows.map((r) => Number(r.ms));
  }
}
