/**
 * The storage boundary. DuckDB allows one writing process per file, and the database is
 * shared with analysts for years (DESIGN rule 10), so docpipe holds the file only while it
 * works on it: `Database.open` takes a handle, `close` gives it back, and the file is released
 * as soon as the last handle in this process is closed. Within a process each file has one
 * attachment and one connection, shared by every handle; statements are serialised through
 * one queue, so a transaction is never interleaved with another caller's statement.
 *
 * Files are attached to one in-memory DuckDB instance per process (`ATTACH` to take the file,
 * `DETACH` to give it back) rather than opened as an instance each: a write opens and closes
 * the file several times a run, and attaching costs about a fifth of creating an instance
 * (measured: 5.5 ms against 24 ms per open and close of a 90-window file). The alias is the
 * file's stem, as when DuckDB opens the file itself, so `current_database()` and qualified
 * names read the same. DuckDB's global settings (`threads`, `memory_limit`,
 * `checkpoint_threshold`) are the process's, shared by every file it has open.
 *
 * A file held by another process is waited for, with backoff and a log line, up to
 * `lockTimeoutMs`; then the open fails with DatabaseBusyError (exit 75). A read-write open
 * migrates the schema forward (./migrations.ts); a read-only one refuses a newer schema.
 */
import { closeSync, existsSync, linkSync, openSync, readlinkSync, readSync, renameSync, rmSync, statSync } from 'node:fs';
import { basename, dirname, extname, join, resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { DuckDBBitValue, DuckDBBlobValue, DuckDBDateValue, DuckDBDecimalValue, DuckDBInstance, DuckDBIntervalValue, DuckDBTimestampMillisecondsValue, DuckDBTimestampNanosecondsValue, DuckDBTimestampSecondsValue, DuckDBTimestampTZValue, DuckDBTimestampValue, DuckDBTypeId, JSDuckDBValueConverter, listValue, StatementType, type DuckDBConnection, type DuckDBValue, type DuckDBValueConverter, type JS } from '@duckdb/node-api';
import { DatabaseBusyError, DatabaseError, DatabasePathError, InterruptedError, UsageError } from '../core/errors.js';
import { ExactDecimal } from '../core/exact-decimal.js';
import { isProcessAlive } from '../core/process-identity.js';
import { checkReadable, migrate, needsUpgrade } from './migrations.js';
import { sqlIdentifier, sqlString } from './sql-files.js';
import { canWrite, isSymbolicLink, makeFolders, tempFiles, tempPathOf } from '../core/files.js';

export const DEFAULT_DB_PATH = 'data/docpipe.duckdb';

/** The folder of a database file a writer opens (created if missing); a path that cannot be a database file is bad input. */
function makeDatabaseFolder(path: string, key: string): void {
  try {
    if (!statSync(key).isFile()) throw new DatabasePathError(`database '${path}' is not a file`);
    return;
  } catch (error) {
    if (error instanceof UsageError) throw error;
    // not there yet: its folder is made below
  }
  try {
    makeFolders(dirname(key));
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EEXIST' || code === 'ENOTDIR') {
      const part = (error as NodeJS.ErrnoException).path;
      const what = code === 'EEXIST' && part !== undefined && isSymbolicLink(part) ? 'a symbolic link that leads nowhere' : 'a file';
      throw new DatabasePathError(`database '${path}' cannot be created: a part of its folder is ${what}`, { cause: error });
    }
    // A folder that exists but takes no new folder (/proc, /sys).
    if (code === 'ENOENT') {
      throw new DatabasePathError(`database '${path}' cannot be created: its folder cannot be made there`, { cause: error });
    }
    // A folder this user may not write in (or a read-only mount): a path to change, not a failure of the run.
    if (code === 'EPERM' || code === 'EACCES' || code === 'EROFS') {
      throw new DatabasePathError(`database '${path}' cannot be created: its folder cannot be made there (${code})`, { cause: error });
    }
    throw new DatabaseError(`cannot create the folder of database ${path}`, { cause: error });
  }
}

/**
 * A database path as given (`--db`, DOCPIPE_DB, the library's `db`): an empty one is refused,
 * since DuckDB would take it for an in-memory database and the run's data would be lost at exit.
 */
export function checkDbPath(raw: unknown, name = '--db'): string {
  const path = Array.isArray(raw) ? raw.at(-1) : raw;
  if (typeof path !== 'string' || path.trim() === '') {
    const where = name === '--db' ? ' (check --db or DOCPIPE_DB)' : '';
    throw new UsageError(`invalid ${name} '${String(path ?? '')}': expected the path of a DuckDB file${where}`);
  }
  // `data/` (or `data/.`) names a folder: DuckDB would open `data` as the file while the spool
  // went into `data/.spool`, and every run would fail.
  if (path !== ':memory:' && /(^|[\\/])(\.{1,2})?$|[\\/]$/.test(path)) {
    throw new UsageError(`invalid ${name} '${path}': it names a folder; expected the path of a DuckDB file (e.g. data/docpipe.duckdb)`);
  }
  return path;
}

/**
 * The rule of every command that only reads the database (query, jobs list, doctor, status,
 * report, dump): the file must exist. A mistyped `--db` is refused with exit 2, naming the
 * path, instead of creating an empty database (and its folders) and reporting nothing.
 */
export function requireDatabaseFile(path: string): void {
  if (path === ':memory:') return;
  let isFile: boolean;
  try {
    isFile = statSync(path).isFile();
  } catch {
    throw new DatabasePathError(`database '${path}' does not exist`);
  }
  if (!isFile) throw new DatabasePathError(`database '${path}' is not a file`);
}

/** How long a writer waits for a file another process holds. @default 5 minutes */
export const DEFAULT_LOCK_TIMEOUT_MS = 300_000;

export type Row = Record<string, unknown>;

/** One statement's result, as `Database.query` returns it. */
export interface QueryResult {
  columns: string[];
  rows: Row[];
  /** A query's result (a SELECT, or rows returned); false for the empty status of CREATE, SET and the like. */
  isResultSet: boolean;
}

/** Column types shown as DuckDB's own text rather than converted to JavaScript Dates. */
const TEMPORAL_TYPES: ReadonlySet<DuckDBTypeId> = new Set([
  DuckDBTypeId.DATE,
  DuckDBTypeId.TIME,
  DuckDBTypeId.TIME_TZ,
  DuckDBTypeId.TIME_NS,
  DuckDBTypeId.TIMESTAMP,
  DuckDBTypeId.TIMESTAMP_S,
  DuckDBTypeId.TIMESTAMP_MS,
  DuckDBTypeId.TIMESTAMP_NS,
  DuckDBTypeId.TIMESTAMP_TZ,
]);
export type Params = DuckDBValue[] | Record<string, DuckDBValue>;

/**
 * Strings as one LIST parameter, for one statement about several ids (`list_contains($ids, id)`).
 * Never empty: the driver cannot bind a list whose item type it cannot see.
 */
export function textList(items: readonly string[]): DuckDBValue {
  if (items.length === 0) throw new Error('textList: an empty list cannot be bound');
  return listValue(items);
}

/** Date and timestamp types whose `infinity` and `-infinity` the client would print as far-off dates. */
const MAY_BE_INFINITE = [DuckDBDateValue, DuckDBTimestampValue, DuckDBTimestampSecondsValue, DuckDBTimestampMillisecondsValue, DuckDBTimestampNanosecondsValue] as const;

/**
 * Values as JavaScript, but dates, times and timestamps as DuckDB prints them, at any depth
 * (a LIST of DATE too): `2026-10-31`, not a Date at midnight UTC. A TIMESTAMPTZ is printed in
 * UTC (`2026-10-31 06:00:00+00`), the session's zone, whatever the machine's: the client's
 * own text would use the process's zone, and a prompt rendered from it would differ by host.
 * An infinite date or timestamp is `infinity` or `-infinity`. A DECIMAL keeps every digit
 * (ExactDecimal); an INTERVAL, a BLOB and a BIT are DuckDB's text (`1 day 02:00:00`,
 * `\xAB\x00hi`, `101`), not a JavaScript object or a Buffer.
 */
const AS_DUCKDB_PRINTS: DuckDBValueConverter<unknown> = (value, type, converter) => {
  if (value === null) return null;
  if (value instanceof DuckDBTimestampTZValue) return timestampTzText(value);
  for (const Kind of MAY_BE_INFINITE) if (value instanceof Kind && !value.isFinite) return String(value) === String(Kind.PosInf) ? 'infinity' : '-infinity';
  if (value instanceof DuckDBDecimalValue) return new ExactDecimal(value.toString());
  if (value instanceof DuckDBBlobValue) return blobText(value.bytes);
  if (value instanceof DuckDBIntervalValue || value instanceof DuckDBBitValue) return value.toString();
  return TEMPORAL_TYPES.has(type.typeId) ? String(value) : JSDuckDBValueConverter(value, type, converter as DuckDBValueConverter<JS>);
};

/**
 * Pure: a result's column names made unique, as its rows are keyed. A name that occurs again
 * (two tables' `total` in a join) is `total:1` the second time, `total:2` the third, skipping
 * a suffix another column already has as its name (`SELECT ... AS "total:1"`), so that no
 * column's values stand in for another's.
 */
function uniqueColumnNames(names: readonly string[]): string[] {
  const asGiven = new Set(names);
  const given = new Set<string>();
  return names.map((name) => {
    let unique = name;
    for (let n = 1; given.has(unique); n++) {
      const candidate = `${name}:${n}`;
      if (!asGiven.has(candidate) && !given.has(candidate)) unique = candidate;
    }
    given.add(unique);
    return unique;
  });
}

/**
 * Pure: a BLOB as DuckDB prints it: printable ASCII as it is, every other byte (and the
 * backslash and quotes, so that the text reads back to the same bytes) as `\xHH`. The client's
 * own text leaves the backslash, so the four bytes `\x41` would print as the one byte `A` does.
 */
function blobText(bytes: Uint8Array): string {
  let text = '';
  for (const b of bytes) {
    text += b >= 0x20 && b <= 0x7e && b !== 0x5c && b !== 0x27 && b !== 0x22 ? String.fromCharCode(b) : `\\x${b.toString(16).toUpperCase().padStart(2, '0')}`;
  }
  return text;
}

/** A TIMESTAMPTZ as DuckDB prints it with TimeZone 'UTC'. */
function timestampTzText(value: DuckDBTimestampTZValue): string {
  const text = new DuckDBTimestampValue(value.micros).toString();
  return value.isFinite ? `${text}+00` : text;
}

export interface OpenOptions {
  /** Open without the write lock; other readers may open the file at the same time. @default false */
  readOnly?: boolean;
  /**
   * Refuse a file that does not exist instead of creating it (and its folders).
   * @default readOnly
   */
  mustExist?: boolean;
  /** DuckDB worker threads. @default DuckDB's own (one per core) */
  threads?: number;
  /** DuckDB's memory limit, e.g. `'256MB'`. @default DuckDB's own (80% of RAM) */
  memoryLimit?: string;
  /**
   * Checkpoint at each commit instead of writing the WAL first: for a writer that closes the
   * file after each short write (which checkpoints anyway), the WAL is written for nothing.
   * Measured on 90 daily windows of 6,000 paths in batches of 20: commit and close took 0.46 s
   * instead of 0.64 s. @default false
   */
  checkpointEachCommit?: boolean;
  /** How long to wait for a file held by another process, in ms. @default 300_000 */
  lockTimeoutMs?: number;
  /** Told once per open that has to wait for another process, with who holds the file. */
  onLockWait?: (holder: string) => void;
  /**
   * Ends a wait for a held file (the run's Ctrl-C, SIGTERM): the open then throws
   * InterruptedError at once instead of waiting out `lockTimeoutMs`. An open of a free file
   * is not affected.
   */
  signal?: AbortSignal | undefined;
  /**
   * For a file this open creates: resolve as soon as the file is created and locked, and
   * create the schema as the first work of its queue (every statement runs after it, and
   * fails with its error should it fail). `Database.isNew` then says the file is empty, which
   * a caller may act on meanwhile without reading it. @default false
   */
  schemaInBackground?: boolean;
}

/** What runs inside a transaction: the same calls, minus nesting. */
export interface Executor {
  run(sql: string, params?: Params): Promise<void>;
  all<T extends Row = Row>(sql: string, params?: Params): Promise<T[]>;
  /** Runs a script of several statements (no parameters). */
  exec(script: string, label: string): Promise<void>;
}

function describe(sql: string): string {
  const line = sql.replace(/\s+/g, ' ').trim();
  return line.length > 80 ? `${line.slice(0, 77)}...` : line;
}

const LOCK_ERROR = /Could not set lock on file/i;

/** `PID 1234` from DuckDB's lock message, so the wait names who holds the file. */
function lockHolder(error: unknown): string {
  const text = error instanceof Error ? error.message : String(error);
  const pid = /\(PID (\d+)\)/.exec(text)?.[1];
  return pid ? `process ${pid}` : 'another process';
}

/** One open file in this process: its connection (and alias, when attached), the statement queue. */
class Shared {
  private queue: Promise<unknown> = Promise.resolve();
  /** The error of a schema created in the background: every later statement fails with it. */
  private broken: { error: unknown } | undefined;
  /** The file was created by this open and its schema is this release's (made in the background). */
  isNew = false;

  constructor(
    readonly path: string,
    readonly readOnly: boolean,
    readonly connection: DuckDBConnection,
    /** The attached file's alias; undefined for a `:memory:` database, which has its own instance. */
    readonly alias: string | undefined,
    /** The instance of a `:memory:` database, closed with it. */
    private readonly own: DuckDBInstance | undefined,
  ) {}

  serial<T>(work: () => Promise<T>): Promise<T> {
    const run = (): Promise<T> => (this.broken ? Promise.reject(this.broken.error) : work());
    const next = this.queue.then(run, run);
    this.queue = next.catch(() => undefined);
    return next;
  }

  /** Queues the schema's creation first; its failure fails every later statement. */
  schemaFirst(create: () => Promise<unknown>): void {
    this.isNew = true;
    void this.serial(create).catch((error: unknown) => {
      this.broken = { error };
    });
  }

  /** Closes once every queued statement has run; releases the file lock. */
  async close(): Promise<void> {
    await this.queue;
    if (this.alias !== undefined) {
      // The checkpoint and the detach (which releases the lock and frees the file's buffers)
      // run on DuckDB's threads, not on the event loop.
      if (!this.readOnly) await this.connection.run(`CHECKPOINT ${sqlIdentifier(this.alias)}`).catch(() => undefined);
      await detachAndClose(this.connection, this.alias);
    } else {
      this.connection.closeSync();
    }
    this.own?.closeSync();
  }
}

/**
 * Detaches the file `alias` (if attached) and closes `connection`, and frees the alias. A file
 * whose checkpoint failed (a full disk) is invalidated by DuckDB: the connection that stands
 * in it can neither leave it (`USE`) nor detach its default database, and the file stayed
 * attached to the process's instance, so that every later open of it in the process failed
 * with a "Unique file handle conflict" instead of the disk's own error. Another connection
 * detaches it then, once this one is closed.
 */
async function detachAndClose(connection: DuckDBConnection, alias: string): Promise<void> {
  const detach = `DETACH DATABASE IF EXISTS ${sqlIdentifier(alias)}`;
  await connection.run(`USE ${ENGINE_CATALOG}`).catch(() => undefined);
  const detached = await connection.run(detach).then(
    () => true,
    () => false,
  );
  connection.closeSync();
  if (!detached) {
    const other = await (await startEngine()).connect();
    await other.run(detach).catch(() => undefined);
    other.closeSync();
  }
  aliases.delete(alias.toLowerCase());
}

interface Entry {
  ready: Promise<Shared>;
  refs: number;
  closing?: Promise<void>;
  /** When the open first met another process's lock (Date.now()); unset while it has not. */
  lockedSince?: number;
}

/** Every file this process has open, by absolute path (`:memory:` databases are never shared). */
const open = new Map<string, Entry>();

/** Gives one handle of an open file back; the last one releases the file (resolves once it is). */
function releaseRef(key: string, entry: Entry, shared: Shared): Promise<void> {
  entry.refs--;
  if (entry.refs > 0) return Promise.resolve();
  entry.closing = shared
    .close()
    .catch(() => undefined)
    .finally(() => {
      if (open.get(key) === entry) open.delete(key);
    });
  return entry.closing;
}

/**
 * How docpipe creates a database file (an existing file keeps what it was created with). The
 * storage format of DuckDB 1.5 compresses a column of repeated strings (paths, queries) as a
 * dictionary of FSST-compressed strings, which needs blocks large enough to hold a row
 * group's dictionary: DuckDB's default 256 KiB. Measured on 90 daily windows of 6,000 paths
 * loaded in batches of 20: 9.2 bytes a page row and 0.38 s to insert and commit, against
 * 16.6 bytes and 0.57 s in the 1.0 format with 64 KiB blocks (docpipe 0.2.0's files). Such
 * files open in DuckDB 1.5 or later only; named, not `latest`, so that a later DuckDB does not
 * silently raise the bar for the analysts' own clients.
 */
const NEW_FILE_OPTIONS = `BLOCK_SIZE ${256 * 1024}, STORAGE_VERSION 'v1.5.0'`;

/** The default catalog of the process's instance, where a connection stands while it detaches. */
const ENGINE_CATALOG = 'memory';

/**
 * The instance lives as long as the process, through every write of a day-long run: DuckDB's
 * allocator is told to give freed memory back (after a query whose peak, or a release, passes
 * 8 MB) instead of keeping it for the next query. Measured on a 365-window export: peak RSS
 * 285-322 MB without, 233-243 MB with (an instance per open, which freed everything on close:
 * 247-250 MB).
 */
const ENGINE_CONFIG = { allocator_flush_threshold: '8MB', allocator_bulk_deallocation_flush_threshold: '8MB' };

let engine: Promise<DuckDBInstance> | undefined;

/**
 * The process's DuckDB instance, to which files are attached; created on first use. Call it
 * early (e.g. while a command parses its arguments) to have it ready by the first open.
 */
export function startEngine(): Promise<DuckDBInstance> {
  engine ??= DuckDBInstance.create(':memory:', ENGINE_CONFIG).catch((error: unknown) => {
    engine = undefined;
    throw new DatabaseError('cannot start DuckDB', { cause: error });
  });
  return engine;
}

/** Aliases in use by attached files (lower case: DuckDB's names ignore case). */
const aliases = new Set<string>();
/**
 * Names the instance has of its own: its catalogs, and the schemas that `USE` would find
 * first (a file named `main.duckdb` is refused as `main`, and `pg_catalog.duckdb` would be
 * the instance's schema of that name).
 */
const RESERVED_ALIASES: ReadonlySet<string> = new Set([ENGINE_CATALOG, 'system', 'temp', 'main', 'pg_catalog', 'information_schema']);

/**
 * The file's stem as its alias, as DuckDB names a file it opens (a reserved name with `_db`
 * after it: `main.duckdb` is `main_db`); made unique in the process with `_2`, `_3`.
 */
function aliasFor(path: string): string {
  const stem = basename(path, extname(path)) || 'db';
  const base = RESERVED_ALIASES.has(stem.toLowerCase()) ? `${stem}_db` : stem;
  let alias = base;
  for (let n = 2; RESERVED_ALIASES.has(alias.toLowerCase()) || aliases.has(alias.toLowerCase()); n++) alias = `${base}_${n}`;
  aliases.add(alias.toLowerCase());
  return alias;
}

/** The bytes of a DuckDB file's headers (a main header and two database headers): a shorter file holds nothing. */
const HEADERS_BYTES = 3 * 4096;
let newFiles = 0;

/**
 * Makes the database file at `path` whole, or leaves nothing there. DuckDB writes a new
 * file's headers in place, in several writes: a process killed between them (a kill -9 in
 * the first milliseconds of a run) left a file of 0, 4,096 or 8,192 bytes that no later open
 * could read, doctor's included. So the file is made under a name of this process's and
 * linked into place, which fails if another process has put one there meanwhile (that one
 * is opened instead). Returns whether this process made the file at `path`.
 */
async function createWhole(connection: DuckDBConnection, link: string): Promise<boolean> {
  // A symbolic link that leads nowhere yet: the file is made where it leads, as DuckDB would.
  const path = isSymbolicLink(link) ? resolve(dirname(link), readlinkSync(link)) : link;
  removeDeadNewFiles(path);
  const tmp = tempPathOf(path);
  const alias = sqlIdentifier(`docpipe_new_${process.pid}_${++newFiles}`);
  try {
    try {
      await connection.run(`ATTACH ${sqlString(tmp)} AS ${alias} (${NEW_FILE_OPTIONS})`);
    } finally {
      // Detached, the file is whole and closed.
      await connection.run(`DETACH DATABASE IF EXISTS ${alias}`).catch(() => undefined);
    }
    linkSync(tmp, path);
    return true;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EEXIST') return false;
    // A file system without hard links (some shares): moved instead, unless one is there by now.
    if (code !== 'EPERM' && code !== 'ENOTSUP' && code !== 'ENOSYS' && code !== 'EOPNOTSUPP') throw error;
    if (existsSync(path)) return false;
    renameSync(tmp, path);
    return true;
  } finally {
    for (const file of [tmp, `${tmp}.wal`]) rmSync(file, { force: true });
  }
}

/**
 * New files that processes now gone were making at `path` (killed before they linked them
 * into place), untouched for a minute: one a process on another host (a shared folder) is
 * making now is fresh.
 */
function removeDeadNewFiles(path: string): void {
  for (const t of tempFiles(dirname(path))) {
    if (t.of !== basename(path) || t.pid === process.pid || Date.now() - t.writtenAt <= 60_000 || isProcessAlive(t.pid)) continue;
    rmSync(join(dirname(path), t.path), { force: true });
  }
}

/** Attaches the file (made already, if new), waiting for another process that holds it. */
async function attach(connection: DuckDBConnection, path: string, alias: string, options: OpenOptions): Promise<void> {
  const mode = options.readOnly ? 'READ_ONLY' : '';
  const sql = `ATTACH ${sqlString(path)} AS ${sqlIdentifier(alias)}${mode ? ` (${mode})` : ''}`;
  const timeout = options.lockTimeoutMs ?? DEFAULT_LOCK_TIMEOUT_MS;
  const started = Date.now();
  let delay = 50;
  let told = false;
  for (;;) {
    try {
      await connection.run(sql);
      return;
    } catch (error) {
      const text = error instanceof Error ? error.message : String(error);
      if (!LOCK_ERROR.test(text)) throw openError(path, error);
      const waited = Date.now() - started;
      if (waited >= timeout) {
        throw new DatabaseBusyError(
          `database ${path} is held by ${lockHolder(error)} (a docpipe run or another DuckDB client); ` +
            `waited ${Math.round(waited / 1000)} s, try again later`,
          { cause: error },
        );
      }
      if (!told) options.onLockWait?.(lockHolder(error));
      told = true;
      // Real time, not the injected clock: the other process lives in real time.
      await lockWait(Math.min(delay, timeout - waited) * (0.75 + Math.random() / 2), path, options.signal);
      delay = Math.min(delay * 2, 2_000);
    }
  }
}

/** How a call that joined another call's open of the file ended. */
type Joined =
  /** The file is open. */
  | { shared: Shared }
  /** That call's open failed on its own terms (its stop, its shorter lock wait, an error). */
  | { theirs: unknown }
  /** This call's stop signal, or the end of its lock wait. */
  | { mine: InterruptedError | DatabaseBusyError };

/** How often a joined call looks at its own lock wait. */
const JOIN_CHECK_MS = 50;

/**
 * Waits for the open of the file another call of this process has under way, on this call's
 * terms: a stop (`signal`) ends the wait, and so does this call's lock wait (`timeoutMs` from
 * `started`) once the open waits for another process's lock; an open of a free file is waited
 * for however long it takes, as this call's own would be.
 */
function joinOpen(entry: Entry, path: string, signal: AbortSignal | undefined, started: number, timeoutMs: number): Promise<Joined> {
  return new Promise<Joined>((resolve) => {
    let timer: NodeJS.Timeout | undefined;
    let over = false;
    const end = (result: Joined): void => {
      if (over) return;
      over = true;
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
      resolve(result);
    };
    const onAbort = (): void => end({ mine: stoppedWaiting(path) });
    const check = (): void => {
      const since = entry.lockedSince;
      if (since !== undefined && Date.now() - Math.max(started, since) >= timeoutMs) {
        const waited = Math.round((Date.now() - started) / 1000);
        return end({ mine: new DatabaseBusyError(`database ${path} is held by another process (a docpipe run or another DuckDB client); waited ${waited} s, try again later`) });
      }
      timer = setTimeout(check, JOIN_CHECK_MS);
      timer.unref();
    };
    if (signal?.aborted) return onAbort();
    signal?.addEventListener('abort', onAbort, { once: true });
    entry.ready.then(
      (shared) => end({ shared }),
      (error: unknown) => end({ theirs: error }),
    );
    if (Number.isFinite(timeoutMs)) check();
  });
}

/** A stop while waiting for a held file. */
const stoppedWaiting = (path: string): InterruptedError => new InterruptedError(`stopped while waiting for database ${path}, held by another process`);

/** One pause of a wait for a held file; a stop (`signal`) ends the wait with InterruptedError. */
async function lockWait(ms: number, path: string, signal: AbortSignal | undefined): Promise<void> {
  const stopped = (): InterruptedError => stoppedWaiting(path);
  if (signal?.aborted) throw stopped();
  try {
    await sleep(ms, undefined, signal ? { signal } : {});
  } catch (error) {
    if (signal?.aborted) throw stopped();
    throw error;
  }
}

/**
 * The settings of an open, as one script. docpipe's days are UTC days: timestamps show the
 * same way whatever the machine's zone. DuckDB's global settings are the instance's, shared
 * by every file the process has open: what this open does not ask for goes back to DuckDB's
 * default, so that one command's settings (an export's single thread) do not outlive it.
 */
function settingsSql(options: OpenOptions): string {
  const global = (name: string, value: string | undefined): string => (value === undefined ? `RESET ${name}` : `SET ${name} = ${value}`);
  return [
    `SET TimeZone = 'UTC'`,
    global('threads', options.threads === undefined ? undefined : String(Math.max(1, Math.floor(options.threads)))),
    global('memory_limit', options.memoryLimit === undefined ? undefined : `'${options.memoryLimit.replace(/'/g, '')}'`),
    global('checkpoint_threshold', options.checkpointEachCommit && !options.readOnly ? `'0b'` : undefined),
    // A load may have turned the checkpoint's merging of row groups off (window-store's vacuumSql).
    global('max_vacuum_tasks', undefined),
  ].join('; ');
}

/** Whether the attached file has no table: created just now (not by another process first). */
async function isEmpty(db: Executor): Promise<boolean> {
  const [row] = await db.all<{ n: bigint }>(`SELECT count(*) AS n FROM duckdb_tables() WHERE database_name = current_database()`);
  return Number(row?.n ?? 0) === 0;
}

async function connect(path: string, options: OpenOptions): Promise<Shared> {
  const memory = path === ':memory:';
  let created = false;
  let own: DuckDBInstance | undefined;
  let connection: DuckDBConnection | undefined;
  let alias: string | undefined;
  try {
    if (memory) {
      own = await DuckDBInstance.create(':memory:');
      connection = await own.connect();
    } else {
      connection = await (await startEngine()).connect();
      alias = aliasFor(path);
      if (!options.readOnly && !existsSync(path)) created = await createWhole(connection, path);
      await attach(connection, path, alias, options);
      // An existing file DuckDB does not take for a database (one it reads as data: a .json,
      // .csv or .parquet file) is attached for writing as an empty in-memory one: a run would
      // load into it and keep nothing. (A file made just now is DuckDB's; read-only, such a
      // file fails to attach: see openError.)
      if (!created && !options.readOnly) {
        const [attached] = (await connection.runAndReadAll(`SELECT path FROM duckdb_databases() WHERE database_name = ${sqlString(alias)}`)).getRowObjectsJS();
        if (attached?.path === null) throw new DatabasePathError(`database '${path}' is not a DuckDB database file`);
      }
      await connection.run(`USE ${sqlIdentifier(alias)}`);
    }
    const shared = new Shared(path, options.readOnly ?? false, connection, alias, own);
    await connection.run(settingsSql(options));
    const db = new Database(shared);
    if (options.readOnly) await checkReadable(db);
    else if (options.schemaInBackground && created && (await isEmpty(db))) shared.schemaFirst(() => migrate(db.direct()));
    else await migrate(db);
    return shared;
  } catch (error) {
    // Detaches the file if it was attached, and frees the alias either way.
    if (connection && alias !== undefined) await detachAndClose(connection, alias);
    else connection?.closeSync();
    own?.closeSync();
    throw error instanceof DatabaseError || error instanceof InterruptedError || error instanceof UsageError ? error : openError(path, error);
  }
}

/**
 * The size of a file that is the start of a DuckDB file cut short (empty, or DuckDB's magic
 * bytes and less than its headers): docpipe 0.2 and earlier left one when killed while they
 * made the file (see createWhole). It holds nothing. Undefined for any other file.
 */
function cutShort(path: string): number | undefined {
  try {
    const { size } = statSync(path);
    if (size === 0) return 0;
    if (size >= HEADERS_BYTES) return undefined;
    const fd = openSync(path, 'r');
    try {
      const head = Buffer.alloc(12);
      readSync(fd, head, 0, 12, 0);
      return head.subarray(8, 12).toString('latin1') === 'DUCK' ? size : undefined;
    } finally {
      closeSync(fd);
    }
  } catch {
    return undefined; // not there, or not to be read: the other messages
  }
}

/** Why a file did not open: one that is not a DuckDB database is bad input (--db), anything else a DatabaseError. */
function openError(path: string, error: unknown): Error {
  const text = error instanceof Error ? error.message : String(error);
  const size = cutShort(path);
  if (size !== undefined && /not a valid DuckDB database file|Could not read enough bytes/i.test(text)) {
    return new DatabasePathError(
      `database '${path}' is ${size} bytes, too short to be a DuckDB database (its headers alone take ${HEADERS_BYTES}): ` +
        'a docpipe run killed while it created the file leaves one like it, with nothing in it; delete it and run again',
      { cause: error },
    );
  }
  // Read-only, a file DuckDB reads as data (see connect) cannot even be attached.
  if (/is not a valid DuckDB database file|Cannot launch in-memory database in read-only mode/i.test(text)) {
    return new DatabasePathError(`database '${path}' is not a DuckDB database file`, { cause: error });
  }
  // A file (or folder) this user may not write or read there: the path is the user's to change.
  const refused = /Permission denied|Read-only file system/i.exec(text);
  if (refused) return new DatabasePathError(`database '${path}' cannot be opened there: ${refused[0].toLowerCase()}`, { cause: error });
  return new DatabaseError(`cannot open database ${path}`, { cause: error });
}

/**
 * Brings the schema and views of an existing file up to this release's, with a short write
 * (the first time only): a reader of this release's views and macros (a report, a dump, a
 * shipped query) then works on a database no writer has opened since an upgrade. `reader`:
 * how the caller reads it (read-only), whose wait and timeout the write uses too.
 */
export async function upgradeIfOlder(path: string, reader: OpenOptions): Promise<void> {
  if (!(await Database.with(path, { ...reader, readOnly: true }, (db) => needsUpgrade(db)))) return;
  // DuckDB writes the file and a WAL beside it: on a read-only mount (a snapshot, a share) it
  // would fail with a bare IO error that says nothing of the upgrade.
  const unwritable = [path, dirname(resolve(path))].find((p) => !canWrite(p));
  if (unwritable !== undefined) {
    throw new DatabaseError(
      `database ${path} was written by an older docpipe and this command needs it upgraded, but ${unwritable} cannot be written here: ` +
        'run any docpipe command that writes on it once where it can be (it upgrades it), or read it as it is with docpipe query',
    );
  }
  const { readOnly: _readOnly, ...writer } = reader;
  await Database.with(path, { ...writer, mustExist: true }, () => Promise.resolve());
}

export class Database implements Executor {
  private closed = false;

  /** @internal use Database.open */
  constructor(private readonly shared: Shared) {}

  get path(): string {
    return this.shared.path;
  }

  get readOnly(): boolean {
    return this.shared.readOnly;
  }

  /**
   * Whether this file was created by the open that attached it, with `schemaInBackground`:
   * it holds nothing but the schema, until the process writes to it.
   */
  get isNew(): boolean {
    return this.shared.isNew;
  }

  /** @internal The same calls without the queue, for work that is itself one queued job. */
  direct(): Executor & { transaction<T>(work: (tx: Executor) => Promise<T>): Promise<T> } {
    return { ...this.now(), transaction: (work) => this.transactionNow(work) };
  }

  /** The statement calls that run at once, for work already in the queue. */
  private now(): Executor {
    return {
      run: (sql, params) => this.runNow(sql, params),
      all: (sql, params) => this.allNow(sql, params),
      exec: (script, label) => this.execNow(script, label),
    };
  }

  /**
   * Opens the database file (creating it unless read-only), waiting for another process
   * that holds it, and migrates the schema on a read-write open. Close the handle as soon
   * as the work is done: the file stays locked for other processes until then.
   */
  static async open(path: string = DEFAULT_DB_PATH, options: OpenOptions = {}): Promise<Database> {
    if (path === ':memory:') return new Database(await connect(path, options));
    const key = resolve(path);
    const mustExist = options.mustExist ?? options.readOnly ?? false;
    if (mustExist) requireDatabaseFile(path);
    const timeout = options.lockTimeoutMs ?? DEFAULT_LOCK_TIMEOUT_MS;
    const started = Date.now();
    let delay = 50;
    for (;;) {
      const entry = open.get(key);
      if (entry?.closing) {
        await entry.closing;
        continue;
      }
      if (entry) {
        entry.refs++;
        const joined = await joinOpen(entry, path, options.signal, started, timeout);
        if ('mine' in joined) {
          // Stopped, or out of time, while another call of this process opens the file: its
          // share is let go of once it is open.
          entry.ready.then((s) => releaseRef(key, entry, s), () => undefined);
          throw joined.mine;
        }
        if ('theirs' in joined) {
          // That call's open failed on its own terms (its stop signal, its shorter lock wait):
          // this one tries on its own (the failed call has let go of the entry).
          if (open.get(key) === entry) open.delete(key);
          continue;
        }
        const { shared } = joined;
        if (shared.readOnly === (options.readOnly ?? false)) return new Database(shared);
        // Open the other way in this process (a library caller's reader beside its export): a
        // writer must not fail at once, nor a reader share the writer's connection (its SQL
        // could write). It waits for that handle to close, as for another process's.
        void releaseRef(key, entry, shared);
        const waited = Date.now() - started;
        const other = shared.readOnly ? 'read-only' : 'read-write';
        if (waited >= timeout) {
          throw new DatabaseBusyError(
            `database ${path} is open ${other} in this process (another handle); waited ${Math.round(waited / 1000)} s, try again later`,
          );
        }
        if (delay === 50) options.onLockWait?.(`a ${other} handle of this process`);
        await lockWait(Math.min(delay, timeout - waited), path, options.signal);
        delay = Math.min(delay * 2, 500);
        continue;
      }
      if (!options.readOnly) makeDatabaseFolder(path, key);
      const created: Entry = {
        ready: connect(path, {
          ...options,
          // The wait left of this call's lock wait (it may have waited for another call's open).
          lockTimeoutMs: Math.max(0, timeout - (Date.now() - started)),
          // Calls that join this open wait for another process's lock on their own terms from here
          // (told once the attach meets the lock, after `created` is set).
          onLockWait: (holder) => {
            created.lockedSince ??= Date.now();
            options.onLockWait?.(holder);
          },
        }),
        refs: 1,
      };
      open.set(key, created);
      try {
        return new Database(await created.ready);
      } catch (error) {
        if (open.get(key) === created) open.delete(key);
        throw error;
      }
    }
  }

  /**
   * Opens, runs `work`, closes: the file is held only for the work. Use it for each short
   * write (a group of windows, a ledger update) so that readers get in between.
   */
  static async with<T>(path: string, options: OpenOptions, work: (db: Database) => Promise<T>): Promise<T> {
    const db = await Database.open(path, options);
    try {
      return await work(db);
    } finally {
      // Released before the caller goes on: "held only while writing" includes the close.
      await db.close();
    }
  }

  /** Runs a multi-statement script (a file from sql/). */
  exec(script: string, label: string): Promise<void> {
    return this.serial(() => this.execNow(script, label));
  }

  run(sql: string, params?: Params): Promise<void> {
    return this.serial(() => this.runNow(sql, params));
  }

  all<T extends Row = Row>(sql: string, params?: Params): Promise<T[]> {
    return this.serial(() => this.allNow<T>(sql, params));
  }

  /**
   * Queues `work` on the file's connection, unless this handle is closed: the connection may
   * live on for another handle of the file, but what was closed is not used again.
   */
  private serial<T>(work: () => Promise<T>): Promise<T> {
    if (this.closed) return Promise.reject(new DatabaseError(`database ${this.path}: this handle is closed`));
    return this.shared.serial(work);
  }

  /**
   * Runs user SQL, one statement after another, and returns each statement's result. Dates,
   * times and timestamps come back as DuckDB prints them (`2026-10-31`,
   * `2026-10-31 06:00:00+00`), not as JavaScript Dates.
   */
  query(sql: string, options: QueryOptions = {}): Promise<QueryResult[]> {
    const { signal } = options;
    let started = false;
    const run = this.serial(async () => {
      started = true;
      // A `:memory:` database has an instance of its own: what the SQL makes is its data.
      if (this.shared.alias === undefined) return this.queryNow(sql, signal);
      // The user's SQL may ATTACH files or create tables in the engine's own catalog, which
      // belong to the process's one instance: they are undone afterwards, so a second call
      // (a library caller's) finds the instance as the first did, and no other file stays locked.
      const before = await this.engineObjects();
      try {
        return await this.queryNow(sql, signal);
      } finally {
        await this.undoEngineObjects(before);
      }
    });
    if (!signal || this.closed) return run;
    // Stopped while it waits behind another handle's statement: at once (its SQL will not run,
    // as queryNow looks at the signal first).
    return new Promise((resolve, reject) => {
      const waiting = (): void => {
        if (!started) reject(new InterruptedError(`${stopCause(signal)}: the SQL was stopped before it ran`));
      };
      if (signal.aborted) waiting();
      else signal.addEventListener('abort', waiting, { once: true });
      run.then(resolve, reject).finally(() => signal.removeEventListener('abort', waiting));
    });
  }

  /** The attached databases, and the tables and views of the engine's catalog. */
  private async engineObjects(): Promise<Set<string>> {
    const reader = await this.shared.connection.runAndReadAll(
      `SELECT 'db:' || database_name AS k FROM duckdb_databases()
       UNION ALL SELECT 'table:' || table_name FROM duckdb_tables() WHERE database_name = '${ENGINE_CATALOG}' AND schema_name = 'main'
       UNION ALL SELECT 'view:' || view_name FROM duckdb_views() WHERE database_name = '${ENGINE_CATALOG}' AND schema_name = 'main' AND NOT internal`,
    );
    return new Set(reader.getRows().map((r) => String(r[0])));
  }

  private async undoEngineObjects(before: ReadonlySet<string>): Promise<void> {
    const connection = this.shared.connection;
    // A failed statement may leave a transaction open: nothing else can run until it ends.
    await connection.run('ROLLBACK').catch(() => undefined);
    for (const key of await this.engineObjects().catch(() => new Set<string>())) {
      if (before.has(key)) continue;
      const [kind, name] = [key.slice(0, key.indexOf(':')), key.slice(key.indexOf(':') + 1)];
      // A file docpipe itself attached meanwhile (another open of this process) stays.
      if (kind === 'db' && aliases.has(name.toLowerCase())) continue;
      const sql =
        kind === 'db'
          ? `DETACH DATABASE IF EXISTS ${sqlIdentifier(name)}`
          : `DROP ${kind === 'table' ? 'TABLE' : 'VIEW'} IF EXISTS ${ENGINE_CATALOG}.main.${sqlIdentifier(name)}`;
      await connection.run(sql).catch(() => undefined);
    }
    await connection.run(`USE ${sqlIdentifier(this.shared.alias!)}`).catch(() => undefined);
  }

  private async queryNow(sql: string, signal: AbortSignal | undefined): Promise<QueryResult[]> {
    // Blank text, comments or semicolons only: no statement (DuckDB's parser fails on it with no message).
    if (sql.replace(/--[^\n]*/g, '').replace(/\/\*[\s\S]*?\*\//g, '').replace(/;/g, '').trim() === '') return [];
    const connection = this.shared.connection;
    // A stop ends the statement running (an analyst's query may run for minutes), not only the wait after it.
    const interrupt = (): void => connection.interrupt();
    signal?.addEventListener('abort', interrupt, { once: true });
    try {
      let statements: Awaited<ReturnType<typeof connection.extractStatements>>;
      try {
        statements = await connection.extractStatements(sql);
      } catch (error) {
        // The text does not parse: no statement of it ran.
        throw new StatementFailure(0, 1, false, error);
      }
      const results: QueryResult[] = [];
      /** Whether a statement so far may have written (any but a SELECT: EXPLAIN ANALYZE runs its statement). */
      let wrote = false;
      const stopped = (at: number): InterruptedError => {
        const where = statements.count > 1 ? ` at statement ${at + 1} of ${statements.count}` : '';
        const kept = !this.shared.readOnly && wrote ? ' (what the statements before it committed stays)' : '';
        return new InterruptedError(`${stopCause(signal)}: the SQL was stopped${where}${kept}`);
      };
      // Prepared one at a time: a statement may use what the one before created.
      for (let i = 0; i < statements.count; i++) {
        if (signal?.aborted) throw stopped(i);
        let prepared: Awaited<ReturnType<typeof statements.prepare>>;
        let reader: Awaited<ReturnType<typeof prepared.runAndReadAll>>;
        try {
          prepared = await statements.prepare(i);
          // The file is attached read-only, but the engine could detach it and attach it again
          // to write (while it is attached, DuckDB refuses a second ATTACH of it, by any path).
          if (this.shared.readOnly && prepared.statementType === StatementType.DETACH) {
            throw new Error('DETACH is not allowed on a database opened in read-only mode');
          }
          reader = await prepared.runAndReadAll();
        } catch (error) {
          if (signal?.aborted) throw stopped(i);
          throw new StatementFailure(i, statements.count, !this.shared.readOnly && wrote, error);
        }
        wrote ||= prepared.statementType !== StatementType.SELECT;
        const columns = uniqueColumnNames(reader.columnNames());
        const rows = reader.convertRows(AS_DUCKDB_PRINTS).map((values) => Object.fromEntries(columns.map((c, k) => [c, values[k]])) as Row);
        results.push({ columns, rows, isResultSet: prepared.statementType === StatementType.SELECT || rows.length > 0 });
      }
      return results;
    } finally {
      signal?.removeEventListener('abort', interrupt);
    }
  }

  /**
   * Runs `work` in one transaction: commit when it resolves, rollback when it throws. Nothing
   * else touches the connection meanwhile.
   */
  transaction<T>(work: (tx: Executor) => Promise<T>): Promise<T> {
    return this.serial(() => this.transactionNow(work));
  }

  private async transactionNow<T>(work: (tx: Executor) => Promise<T>): Promise<T> {
    await this.runNow('BEGIN TRANSACTION');
    try {
      const result = await work(this.now());
      await this.runNow('COMMIT');
      return result;
    } catch (error) {
      await this.shared.connection.run('ROLLBACK').catch(() => undefined);
      throw error;
    }
  }

  /**
   * Gives the handle back; the last handle of the file in this process releases the file.
   * Resolves once it is released (or at once if other handles keep it open); it never
   * rejects, so a `finally` may call it without awaiting.
   */
  close(): Promise<void> {
    if (this.closed) return Promise.resolve();
    this.closed = true;
    const shared = this.shared;
    if (shared.path === ':memory:') return shared.close().catch(() => undefined);
    const key = resolve(shared.path);
    const entry = open.get(key);
    if (!entry) return Promise.resolve();
    return releaseRef(key, entry, shared);
  }

  private async execNow(script: string, label: string): Promise<void> {
    try {
      await this.shared.connection.run(script);
    } catch (error) {
      throw new DatabaseError(`${label} failed`, { cause: error });
    }
  }

  private async runNow(sql: string, params?: Params): Promise<void> {
    try {
      await this.shared.connection.run(sql, params);
    } catch (error) {
      throw new DatabaseError(`database ${this.path}: ${describe(sql)} failed`, { cause: error });
    }
  }

  private async allNow<T extends Row>(sql: string, params?: Params): Promise<T[]> {
    try {
      const reader = await this.shared.connection.runAndReadAll(sql, params);
      return reader.getRowObjectsJS() as T[];
    } catch (error) {
      throw new DatabaseError(`database ${this.path}: ${describe(sql)} failed`, { cause: error });
    }
  }
}

/**
 * Turns a DuckDB error into a one-line reason: its first line (`Catalog Error: ...`), with
 * DuckDB's hint (`Did you mean "visitor_totals"?`) when it gives one.
 */
export function databaseReason(error: unknown): string {
  const cause = error instanceof Error && error.cause instanceof Error ? error.cause : error;
  // The node API's own prefix on an error of DuckDB's parser says nothing more.
  const text = (cause instanceof Error ? cause.message : String(cause)).replace(/^Failed to extract statements: /, '');
  const lines = text.split('\n');
  const hint = lines.find((line) => /^Did you mean\b/.test(line.trim()));
  return [lines[0] ?? text, hint?.trim()].filter(Boolean).join(' ');
}

/** What stopped user SQL, as its message begins: the stop signal's reason. */
function stopCause(signal: AbortSignal | undefined): string {
  return signal?.reason instanceof Error ? signal.reason.message : 'stopped';
}

/** Options of Database.query. */
export interface QueryOptions {
  /** Stops the statement running (DuckDB interrupts it): the query rejects with InterruptedError. */
  signal?: AbortSignal | undefined;
}

/**
 * A statement of a user's SQL that failed (`Database.query`): which one of how many, and
 * whether the ones before it may have changed the file (one that is not a SELECT ran on a
 * file open for writing: each statement commits on its own, as in the duckdb shell, unless
 * the SQL began a transaction, which the failure rolls back). Its cause is DuckDB's error.
 */
export class StatementFailure extends DatabaseError {
  constructor(
    readonly index: number,
    readonly count: number,
    readonly mayHaveWritten: boolean,
    cause: unknown,
  ) {
    super(`${count > 1 ? `statement ${index + 1} of ${count}: ` : ''}${databaseReason(cause)}`, { cause });
  }
}

/** Raised for bad SQL given by a user (exit 2): of several statements, it names the one that failed. */
export function userSqlError(label: string, error: unknown): UsageError {
  let where = '';
  if (error instanceof StatementFailure && error.count > 1) {
    const before = error.index === 1 ? 'the statement before it ran: what it committed stays' : `the ${error.index} before it ran: what they committed stays`;
    where = `statement ${error.index + 1} of ${error.count}${error.mayHaveWritten ? ` (${before})` : ''}: `;
  }
  return new UsageError(`${label}: ${where}${databaseReason(error)}`, { cause: error });
}
