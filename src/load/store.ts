/**
 * The database as a writer process uses it: opened for each short piece of work and closed
 * straight after, so readers get in between (DESIGN rule 10). Every write also moves the
 * request journal into `request_log`, in the same transaction.
 */
import type { RequestJournal } from '../spool/request-journal.js';
import { Database, type Executor, type OpenOptions } from './database.js';

export class Store {
  constructor(
    readonly path: string,
    readonly options: OpenOptions = {},
    readonly journal?: RequestJournal,
  ) {}

  /** Reads with the file held only for `work`. */
  read<T>(work: (db: Database) => Promise<T>): Promise<T> {
    return Database.with(this.path, this.options, work);
  }

  /**
   * One transaction with the file held only for it; the request journal moves in with it.
   * `threads` overrides the store's DuckDB threads for this write (when it opens the file).
   */
  write<T>(work: (tx: Executor) => Promise<T>, options: { threads?: number } = {}): Promise<T> {
    return Database.with(this.path, { ...this.options, ...options }, async (db) => {
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
    });
  }
}
