/**
 * The request log as the request budget reads it: `request_log` in the database plus the
 * journal lines not yet moved there, so that back-to-back runs (and a run after kill -9)
 * share one exact hourly budget.
 */
import type { RequestHistory } from '../api/request-budget.js';
import type { RequestJournal } from '../spool/request-journal.js';
import type { Store } from './store.js';

export class RequestLog implements RequestHistory {
  constructor(
    private readonly store: Store,
    private readonly journal: RequestJournal,
    /** The database was created by this run and holds no request yet: the first read needs only the journal. */
    private newDatabase = false,
  ) {}

  async requestTimes(scope: string, sinceMs: number): Promise<number[]> {
    const skipDatabase = this.newDatabase;
    this.newDatabase = false; // later reads find this run's own requests moved there
    const rows = skipDatabase ? [] : await this.store.read((db) =>
      db.all<{ id: string | null; ms: number | bigint }>(
        `SELECT request_id AS id, epoch_ms(started_at) AS ms FROM request_log
          WHERE scope = $scope AND started_at > $since::TIMESTAMPTZ`,
        { scope, since: new Date(sinceMs).toISOString() },
      ),
    );
    const lines = this.journal.lines();
    // An attempt withdrawn before it was sent was no request, and one whose connection was
    // never made left the scope when it ended: neither counts, even if its start is in the table.
    const notCounted = new Set(lines.flatMap((l) => (l.withdrawn || l.scope !== scope ? [l.id] : [])));
    const inDatabase = new Set(rows.flatMap((r) => (r.id === null ? [] : [r.id])));
    const journalled = lines
      .filter((l) => l.scope === scope && l.started_ms > sinceMs && !inDatabase.has(l.id) && !notCounted.has(l.id))
      .map((l) => l.started_ms);
    return [...rows.filter((r) => r.id === null || !notCounted.has(r.id)).map((r) => Number(r.ms)), ...journalled];
  }
}
