/**
 * The request log as the request budget reads it: `request_log` in the database plus the
 * journal lines not yet moved there, so that back-to-back runs (and a run after kill -9)
 * share one exact hourly budget.
 */
import type { RequestHistory } from '../api/request-budget.js';
import { dirname, join } from 'node:path';
import { sweepStaleLock, takeShortLock } from '../spool/short-lock.js';
import type { RequestJournal } from '../spool/request-journal.js';
import type { Store } from './store.js';

/** The slot lock's file in the requests folder (no journal file is named like it). */
export const SLOT_LOCK = 'budget.lock';

export class RequestLog implements RequestHistory {
  /** The requests folder as last looked at: the changes other processes had made to it, and whether another live run journals there. */
  private seen: { changes: number; others: boolean } | undefined;

  constructor(
    private readonly store: Store,
    private readonly journal: RequestJournal,
    /** The database was created by this run and holds no request yet: the first read needs only the journal. */
    private newDatabase = false,
  ) {}

  /**
   * Removes a slot lock a killed run left (see sweepStaleLock), as this run's own change to
   * the folder: a run that spends requests calls it at its start.
   */
  sweepStaleLock(): void {
    this.journal.ownChange(() => sweepStaleLock(join(this.journal.dir, SLOT_LOCK), dirname(this.journal.dir)));
  }

  async requestTimes(scope: string, sinceMs: number): Promise<number[]> {
    const skipDatabase = this.newDatabase;
    this.newDatabase = false; // later reads find this run's own requests moved there
    // The journals are read while the file is held: another process moves journal lines
    // into the table only in a write, and removes them from its journal after the commit,
    // so every line is found in one place or the other (or both: counted once, by id).
    const { rows, lines } = skipDatabase
      ? { rows: [], lines: this.journal.lines() }
      : await this.store.read(async (db) => ({
          rows: await db.all<{ id: string | null; ms: number | bigint }>(
            `SELECT request_id AS id, epoch_ms(started_at) AS ms FROM request_log
              WHERE scope = $scope AND started_at > $since::TIMESTAMPTZ`,
            { scope, since: new Date(sinceMs).toISOString() },
          ),
          lines: this.journal.lines(),
        }));
    // An attempt withdrawn before it was sent was no request, and one whose connection was
    // never made left the scope when it ended: neither counts, even if its start is in the table.
    const notCounted = new Set(lines.flatMap((l) => (l.withdrawn || l.scope !== scope ? [l.id] : [])));
    const inDatabase = new Set(rows.flatMap((r) => (r.id === null ? [] : [r.id])));
    const journalled = lines
      .filter((l) => l.scope === scope && l.started_ms > sinceMs && !inDatabase.has(l.id) && !notCounted.has(l.id))
      .map((l) => l.started_ms);
    return [...rows.filter((r) => r.id === null || !notCounted.has(r.id)).map((r) => Number(r.ms)), ...journalled];
  }

  /** The lock around a slot's last read and its journal line (RequestHistory.lockSlot): `budget.lock` in the requests folder. */
  async lockSlot(signal?: AbortSignal): Promise<() => void> {
    // The lock file is this run's own change to the folder, not a sign of another run.
    const release = await this.journal.ownChangeAsync(() => takeShortLock(join(this.journal.dir, SLOT_LOCK), dirname(this.journal.dir), signal));
    return () => this.journal.ownChange(release);
  }

  /**
   * Whether another run keeps a journal beside this run's (it is making requests now), or has
   * been at work since the last look. One stat of the requests folder; its files are listed
   * again only when another process changed it (a journal made, moved in or removed).
   */
  othersAtWork(): boolean {
    const changes = this.journal.othersChanged();
    if (this.seen?.changes === changes) return this.seen.others;
    const before = this.seen?.changes ?? 0;
    this.seen = { changes, others: this.journal.othersJournalling() };
    // Another process changed the folder since the last look: a run that has ended since may
    // have spent requests this run has not counted, so the history is read again, once.
    return this.seen.others || changes !== before;
  }
}
