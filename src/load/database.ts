/**
 * The storage boundary: one DuckDB connection per opened file, every statement serialised
 * through one queue (so a transaction is never interleaved with another caller's statement),
 * one begin/commit/rollback helper, and DuckDB's plain errors wrapped with what was running.
 */
import { mkdirSync, readFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  DuckDBDataChunk,
  DuckDBInstance,
  type DuckDBConnection,
  type DuckDBType,
  type DuckDBValue,
} from '@duckdb/node-api';
import { DatabaseError, UsageError } from '../core/errors.js';

export const DEFAULT_DB_PATH = 'data/docpipe.duckdb';
const SQL_DIR = fileURLToPath(new URL('../../sql/', import.meta.url));
/** DuckDB's vector size: a data chunk holds at most this many rows. */
const CHUNK_ROWS = 2048;

export type Row = Record<string, unknown>;

export interface OpenOptions {
  /**
   * DuckDB worker threads. Loaders set 1: each load statement is small and single-threaded
   * anyway, and the other core is better spent fetching and parsing the next window.
   * @default DuckDB's own (one per core)
   */
  threads?: number;
}
export type Params = DuckDBValue[] | Record<string, DuckDBValue>;

/** What runs inside a transaction: the same calls, minus nesting. */
export interface Executor {
  run(sql: string, params?: Params): Promise<void>;
  all<T extends Row = Row>(sql: string, params?: Params): Promise<T[]>;
  /** Bulk-appends columns (one array per table column, in table order) through the appender. */
  append(table: string, types: readonly DuckDBType[], columns: readonly (readonly DuckDBValue[])[]): Promise<void>;
}

export function readSqlFile(name: string): string {
  return readFileSync(`${SQL_DIR}${name}`, 'utf8');
}

function describe(sql: string): string {
  const line = sql.replace(/\s+/g, ' ').trim();
  return line.length > 80 ? `${line.slice(0, 77)}...` : line;
}

export class Database implements Executor {
  private queue: Promise<unknown> = Promise.resolve();
  private closed = false;

  private constructor(
    readonly path: string,
    private readonly connection: DuckDBConnection,
  ) {}

  /**
   * Opens (creating if needed) the database file and applies the schema. Within a process
   * each file has one DuckDB instance (`fromCache`); a file held by another process is a
   * clear DatabaseError instead of DuckDB's lock message.
   */
  static async open(path: string = DEFAULT_DB_PATH, options: OpenOptions = {}): Promise<Database> {
    const inMemory = path === ':memory:';
    if (!inMemory) mkdirSync(dirname(path), { recursive: true });
    let instance: DuckDBInstance;
    try {
      // ':memory:' must not come from the cache, or every caller would share one database.
      instance = inMemory ? await DuckDBInstance.create(':memory:') : await DuckDBInstance.fromCache(path);
    } catch (error) {
      const text = error instanceof Error ? error.message : String(error);
      if (/Could not set lock on file/i.test(text)) {
        throw new DatabaseError(
          `database ${path} is in use by another docpipe process (or another DuckDB client); ` +
            `wait for it to finish or use another --db`,
          { cause: error },
        );
      }
      throw new DatabaseError(`cannot open database ${path}`, { cause: error });
    }
    const db = new Database(path, await instance.connect());
    // docpipe's days are UTC days; show timestamps the same way whatever the machine's zone.
    await db.run(`SET TimeZone = 'UTC'`);
    // A setting of the (shared) instance, not of its config: the cache refuses a second
    // open of the same file with a different config.
    if (options.threads !== undefined) await db.run(`SET threads = ${Math.max(1, Math.floor(options.threads))}`);
    await db.exec(readSqlFile('schema.sql'), 'sql/schema.sql');
    await db.exec(readSqlFile('views.sql'), 'sql/views.sql');
    return db;
  }

  /** Runs a multi-statement script (a file from sql/). */
  async exec(script: string, label: string): Promise<void> {
    await this.serial(async () => {
      try {
        await this.connection.run(script);
      } catch (error) {
        throw new DatabaseError(`${label} failed`, { cause: error });
      }
    });
  }

  run(sql: string, params?: Params): Promise<void> {
    return this.serial(() => this.runNow(sql, params));
  }

  all<T extends Row = Row>(sql: string, params?: Params): Promise<T[]> {
    return this.serial(() => this.allNow<T>(sql, params));
  }

  /** Runs user SQL (possibly several statements) and returns the last result with its columns. */
  query(sql: string): Promise<{ columns: string[]; rows: Row[] }> {
    return this.serial(async () => {
      const reader = await this.connection.runAndReadAll(sql);
      return { columns: reader.columnNames(), rows: reader.getRowObjectsJS() as Row[] };
    });
  }

  append(table: string, types: readonly DuckDBType[], columns: readonly (readonly DuckDBValue[])[]): Promise<void> {
    return this.serial(() => this.appendNow(table, types, columns));
  }

  /**
   * Runs `work` in one transaction: commit when it resolves, rollback when it throws. Nothing
   * else touches the connection meanwhile.
   */
  transaction<T>(work: (tx: Executor) => Promise<T>): Promise<T> {
    return this.serial(async () => {
      await this.runNow('BEGIN TRANSACTION');
      const tx: Executor = {
        run: (sql, params) => this.runNow(sql, params),
        all: (sql, params) => this.allNow(sql, params),
        append: (table, types, columns) => this.appendNow(table, types, columns),
      };
      try {
        const result = await work(tx);
        await this.runNow('COMMIT');
        return result;
      } catch (error) {
        await this.connection.run('ROLLBACK').catch(() => undefined);
        throw error;
      }
    });
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.connection.closeSync();
  }

  private serial<T>(work: () => Promise<T>): Promise<T> {
    const next = this.queue.then(work, work);
    this.queue = next.catch(() => undefined);
    return next;
  }

  private async runNow(sql: string, params?: Params): Promise<void> {
    try {
      await this.connection.run(sql, params);
    } catch (error) {
      throw new DatabaseError(`database ${this.path}: ${describe(sql)} failed`, { cause: error });
    }
  }

  private async allNow<T extends Row>(sql: string, params?: Params): Promise<T[]> {
    try {
      const reader = await this.connection.runAndReadAll(sql, params);
      return reader.getRowObjectsJS() as T[];
    } catch (error) {
      throw new DatabaseError(`database ${this.path}: ${describe(sql)} failed`, { cause: error });
    }
  }

  private async appendNow(
    table: string,
    types: readonly DuckDBType[],
    columns: readonly (readonly DuckDBValue[])[],
  ): Promise<void> {
    const rows = columns[0]?.length ?? 0;
    if (rows === 0) return;
    try {
      const appender = await this.connection.createAppender(table);
      try {
        for (let start = 0; start < rows; start += CHUNK_ROWS) {
          const size = Math.min(CHUNK_ROWS, rows - start);
          const chunk = DuckDBDataChunk.create([...types], size);
          chunk.setColumns(columns.map((column) => column.slice(start, start + size)));
          appender.appendDataChunk(chunk);
        }
        appender.flushSync();
      } finally {
        appender.closeSync();
      }
    } catch (error) {
      throw new DatabaseError(`database ${this.path}: appending ${rows} rows to ${table} failed`, { cause: error });
    }
  }
}

/** Turns a DuckDB error's first line into a one-line reason (`Catalog Error: ...`). */
export function databaseReason(error: unknown): string {
  const cause = error instanceof Error && error.cause instanceof Error ? error.cause : error;
  const text = cause instanceof Error ? cause.message : String(cause);
  return text.split('\n')[0] ?? text;
}

/** Raised for bad SQL given by a user (exit 2). */
export function userSqlError(label: string, error: unknown): UsageError {
  return new UsageError(`${label}: ${databaseReason(error)}`, { cause: error });
}
