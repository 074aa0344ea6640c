/**
 * The database as a writer process uses it: opened for each short piece of work and closed
 * straight after, so readers get in between (DESIGN rule 10). Every write also moves the
 * request journal into `request_log`, in the same transaction.
 */
import { DatabaseBusyError } from '../core/errors.js';
import { stopReasonOf } from '../core/outcome.js';
import type { RequestJournal } from '../spool/request-journal.js';
import { Database, type Executor, type OpenOptions, type Params } from './database.js';

interface QueuedStatement {
  sql: string;
  params: Params;
  resolve: () => void;
  reject: (error: unknown) => void;
}

/** How long a stopped run's write still waits for a held file (see Store.saveStop). */
export const STOP_GRACE_MS = 5_000;

export class Store {
  readonly options: OpenOptions;
  /** Statements (`run`) waiting for the write being committed. */
  private queued: QueuedStatement[] = [];
  private committing = false;
  /**
   * Set once an open waited out the lock timeout: the run stops there, and its later opens
   * (its end, its closing read) try once instead of waiting that long again, so that a run
   * ends about `lockTimeoutMs` after it began to wait, not a multiple of it.
   */
  private heldOut = false;
  /**
   * Once a run has work to save (beginSaving), a write's wait for a held file ends
   * STOP_GRACE_MS after a stop (the `signal` of the options), not at once. A stopped export's
   * fetched windows and its record are worth a short wait (an analyst's query may hold the
   * file for a second or two); a file held longer leaves them to the spool and the next run,
   * and a second Ctrl-C quits at once. Reads, and a run's start, stop at once.
   */
  private saveStop: AbortSignal | undefined;
  /** The store's own copy of the caller's stop (held here: the caller's signal holds it weakly). */
  private runStop: AbortSignal | undefined;

  /** The run has begun: from now on its writes save what they can after a stop (see saveStop). */
  beginSaving(): void {
    const stop = this.options.signal;
    if (stop === undefined || this.runStop !== undefined) return;
    // Listened to on a copy: a listener on the caller's signal itself would outlive the run (a
    // service's signal serves many runs).
    this.runStop = AbortSignal.any([stop]);
    const late = new AbortController();
    const arm = (): void => void setTimeout(() => late.abort(stop.reason), STOP_GRACE_MS).unref();
    if (this.runStop.aborted) arm();
    else this.runStop.addEventListener('abort', arm, { once: true });
    this.saveStop = late.signal;
  }

  constructor(
    readonly path: string,
    options: OpenOptions = {},
    readonly journal?: RequestJournal,
  ) {
    // Each write is followed by a close, which checkpoints: the WAL would be written for nothing.
    this.options = { checkpointEachCommit: true, ...options };
  }

  /**
   * Opens the file and keeps it open until the returned `release`: steps that follow each
   * other at once (a run's start; its last loads and its record) share one open instead of
   * each opening and closing it (about 20 ms each). `release` may be called again: it then
   * does nothing. `allThreads`: from now until the file is closed, DuckDB works on all its
   * threads even if the store's options keep it to fewer (nothing else is left to share the
   * cores with).
   */
  async hold(allThreads = false): Promise<() => Promise<void>> {
    const db = await this.open((options) => Database.open(this.path, options), true);
    if (allThreads && this.options.threads !== undefined) await db.run('RESET threads');
    return () => db.close();
  }

  /**
   * `hold`, for a run's start: a file that does not exist yet is created and locked, and its
   * schema is made in the background (every statement waits for it). `isNew` says the file
   * holds nothing yet, so that the run's plan needs no read of it: on a new database the first
   * request went out about 40 ms after the CLI started, against about 105 ms when the schema
   * was made first.
   */
  async holdForStart(): Promise<{ release: () => Promise<void>; isNew: boolean }> {
    const db = await this.open((options) => Database.open(this.path, { ...options, schemaInBackground: true }));
    return { release: () => db.close(), isNew: db.isNew };
  }

  /** Reads with the file held only for `work`. */
  read<T>(work: (db: Database) => Promise<T>): Promise<T> {
    return this.open((options) => Database.with(this.path, options, work));
  }

  /** Runs an open with this store's options (see heldOut, and saveStop for a write's). */
  private async open<T>(opening: (options: OpenOptions) => Promise<T>, toWrite = false): Promise<T> {
    let options = this.heldOut ? { ...this.options, lockTimeoutMs: 0 } : this.options;
    if (toWrite && this.saveStop) options = { ...options, signal: this.saveStop };
    try {
      return await opening(options);
    } catch (error) {
      if (error instanceof DatabaseBusyError) this.heldOut = true;
      throw error;
    }
  }

  /** One transaction with the file held only for it; the request journal moves in with it. */
  write<T>(work: (tx: Executor) => Promise<T>): Promise<T> {
    return this.open((options) => Database.with(this.path, options, async (db) => {
      const files = this.journal?.take() ?? [];
      let result: T;
      try {
        result = await db.transaction(async (tx) => {
          const value = await work(tx);
          await this.journal?.ingest(tx, files);
          return value;
        });
      } catch (error) {
        this.journal?.release(files);
        throw error;
      }
      this.journal?.settle(files);
      return result;
    }), true);
  }

  /**
   * One conditional statement with `RETURNING`, in a short write of its own (not batched: the
   * caller acts on the answer): whether it returned a row, i.e. the insert or update went through.
   */
  async claim(sql: string, params: Params): Promise<boolean> {
    return (await this.write((tx) => tx.all(sql, params))).length > 0;
  }

  /**
   * One statement, committed before this resolves, in a short write. Statements that arrive
   * while another is committing (the polls of several jobs, due at the same moment) go in
   * together in the next write: one open instead of one each.
   */
  run(sql: string, params: Params): Promise<void> {
    return new Promise((resolve, reject) => {
      this.queued.push({ sql, params, resolve, reject });
      if (!this.committing) void this.commitQueued();
    });
  }

  private async commitQueued(): Promise<void> {
    this.committing = true;
    try {
      while (this.queued.length > 0) {
        const batch = this.queued.splice(0);
        try {
          await this.write(async (tx) => {
            for (const q of batch) await tx.run(q.sql, q.params);
          });
          for (const q of batch) q.resolve();
        } catch (error) {
          // A held file would hold every one of them alike; any other failure is retried one
          // statement a write, so that each caller gets its own statement's outcome.
          if (batch.length === 1 || stopReasonOf(error) === 'locked') {
            for (const q of batch) q.reject(error);
            continue;
          }
          for (const q of batch) await this.write((tx) => tx.run(q.sql, q.params)).then(q.resolve, q.reject);
        }
      }
    } finally {
      this.committing = false;
    }
  }
}
