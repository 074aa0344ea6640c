/**
 * The request journal: every HTTP attempt is appended to a file in the spool when it is
 * made, before the request is sent, so the hourly budget stays exact after kill -9 (DESIGN
 * rule 9). The database is not held between writes, so the journal is moved into
 * `request_log` with the next write (`take` → `ingest` in that write's transaction →
 * `settle` after it commits). The move is idempotent: a crash between commit and settle
 * leaves lines that are already in the table, and they are skipped by their id.
 *
 * Files: `<spool>/requests/<pid>+<start>-<runId>.jsonl` (`<pid>-<runId>.jsonl` where the
 * process's start is unknown, and from docpipe 0.2.0), one JSON object a line; a line is written
 * when an attempt starts (status null) and another when it ends. A file being moved is
 * renamed to `….jsonl.<n>.ingesting` first, so lines appended meanwhile go to a fresh file.
 *
 * The end line waits for the next start line and goes out with it, in one write (a page
 * walk makes one attempt after another), or else at the next turn of the event loop, or when
 * the file is closed: a process killed meanwhile loses the outcome of its last attempt, and
 * then has none in flight, so at most one attempt has no outcome either way.
 */
import { closeSync, existsSync, fstatSync, openSync, readFileSync, readdirSync, renameSync, rmSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { Executor } from '../load/database.js';
import { longerAgo, moment, type Moment } from '../core/clock.js';
import { isThisProcess, thisProcess } from '../core/process-identity.js';
import { recordAlive, startHeartbeat } from './liveness.js';
import { appendWholeSync, makeFolders, namesIn } from '../core/files.js';
import { wellFormed } from './spool.js';

export interface JournalLine {
  id: string;
  run_id: string;
  scope: string;
  method: string;
  path: string;
  started_ms: number;
  status: number | null;
  duration_ms: number | null;
  /** The attempt was withdrawn before it was sent (`withdraw`): no request, not in request_log. */
  withdrawn?: boolean;
}

export interface AttemptStart {
  scope: string;
  method: string;
  path: string;
  startedAt: number;
}

/**
 * Journal file names: `<pid>+<start>-<runId>.jsonl` (the start tells a reused pid:
 * ../core/process-identity.ts) or `<pid>-<runId>.jsonl`, and `….jsonl.<n>.ingesting` while
 * being moved.
 */
export const JOURNAL_FILE = /^(\d+)(?:\+(\d+\.[0-9a-f]+(?:\.\d+)?))?-.+\.jsonl(\.\d+\.ingesting)?$/;

/** This process's journal file name for a run. */
function journalName(runId: string): string {
  const me = thisProcess();
  return `${me.pid}${me.start === undefined ? '' : `+${me.start}`}-${runId}.jsonl`;
}

/** The process a journal file names (null: not a journal file). */
export function journalProcess(name: string): { pid: number; start?: string } | null {
  const match = JOURNAL_FILE.exec(name);
  if (!match) return null;
  return { pid: Number(match[1]), ...(match[2] === undefined ? {} : { start: match[2] }) };
}

/**
 * Whether a journal file in `dir` (the spool's requests folder) is this process's (any run of
 * it), or another live process's. Its name has no host: its pid and start are checked as this
 * host's, or by its heartbeat in the spool when the start shows another boot or container
 * (./liveness.ts).
 */
export function journalOfLiveProcess(name: string, dir: string): { pid: number; live: boolean; mine: boolean } | null {
  const owner = journalProcess(name);
  if (!owner) return null;
  const ref = { ...owner, host: thisProcess().host };
  const mine = isThisProcess(ref);
  // A name without the start (docpipe 0.2.0's): the file was written to while its process
  // lived, so a process that started after its last line cannot be that one.
  const writtenAt = owner.start === undefined ? statSync(join(dir, name), { throwIfNoEntry: false })?.mtimeMs : undefined;
  return { pid: owner.pid, mine, live: mine || recordAlive(dirname(dir), ref, writtenAt) !== false };
}

/**
 * Whether another run is journalling requests into `dir` now: a file of a live process other
 * than this one, or of another run of this one. A run at work has one nearly all the time (a
 * write moves it, the next attempt starts another), so a run that checks before each window
 * soon sees one that started after it, or overtook it.
 */
export function otherRunsJournalling(dir: string, runId: string): boolean {
  const own = journalName(runId);
  return namesIn(dir).some((name) => !name.startsWith(own) && journalOfLiveProcess(name, dir)?.live === true);
}

const isText = (value: unknown): value is string => typeof value === 'string';
const isNumber = (value: unknown): value is number => typeof value === 'number' && Number.isFinite(value);
const isNumberOrNull = (value: unknown): value is number | null | undefined => value === undefined || value === null || isNumber(value);

/**
 * Pure: the attempts of one journal file's text, a line each. A line torn by a crash, or one
 * that is not an attempt as the journal writes it (each field of its type), is left
 * out: that attempt is lost to the log, not to the budget's safety.
 */
export function parseJournalText(text: string): JournalLine[] {
  const lines: JournalLine[] = [];
  for (const raw of text.split('\n')) {
    if (raw.trim() === '') continue;
    let value: unknown;
    try {
      value = JSON.parse(raw);
    } catch {
      continue;
    }
    if (typeof value !== 'object' || value === null) continue;
    const l = value as Record<string, unknown>;
    if (!isText(l.id) || l.id === '' || !isText(l.run_id) || !isText(l.scope) || !isText(l.method) || !isText(l.path)) continue;
    if (!isNumber(l.started_ms) || !isNumberOrNull(l.status) || !isNumberOrNull(l.duration_ms)) continue;
    if (l.withdrawn !== undefined && typeof l.withdrawn !== 'boolean') continue;
    lines.push({
      id: l.id,
      run_id: l.run_id,
      scope: l.scope,
      method: l.method,
      path: l.path,
      started_ms: l.started_ms,
      status: l.status ?? null,
      duration_ms: l.duration_ms ?? null,
      ...(l.withdrawn === true ? { withdrawn: true } : {}),
    });
  }
  return lines;
}

/** Pure: the lines of journal files, one entry per attempt (start and end lines merged). */
export function mergeJournalLines(lines: readonly JournalLine[]): JournalLine[] {
  const byId = new Map<string, JournalLine>();
  for (const line of lines) {
    const seen = byId.get(line.id);
    byId.set(
      line.id,
      seen
        ? {
            ...seen,
            started_ms: Math.min(seen.started_ms, line.started_ms),
            // The end line's scope: an attempt that never reached a server leaves its budget's.
            scope: line.status === null ? seen.scope : line.scope,
            status: line.status ?? seen.status,
            duration_ms: line.duration_ms ?? seen.duration_ms,
            ...(line.withdrawn || seen.withdrawn ? { withdrawn: true } : {}),
          }
        : line,
    );
  }
  return [...byId.values()];
}

/** The shape of `ingest`'s JSON parameter, for DuckDB's from_json. */
const ATTEMPTS_JSON_TYPE = JSON.stringify([
  { id: 'VARCHAR', run_id: 'VARCHAR', scope: 'VARCHAR', method: 'VARCHAR', path: 'VARCHAR', started_ms: 'BIGINT', status: 'INTEGER', duration_ms: 'INTEGER', withdrawn: 'BOOLEAN' },
]);

/** A run that has not written for this long checks that its file is still its own (a fifth of HEARTBEAT_STALE_MS). */
const RECHECK_AFTER_MS = 60_000;

/**
 * Files taken by a write of this process that has not committed yet, whichever run (journal)
 * took them: two runs in one process (a library caller's) must not move one file twice.
 */
const held = new Set<string>();
/** The journals of this process by the file each has open: a run that moves another's file closes it first. */
const openJournals = new Map<string, RequestJournal>();

/** The folder's mtime (ms; 0 while it does not exist, or cannot: a part of its path is a file). */
function folderMtime(dir: string): number {
  try {
    return statSync(dir).mtimeMs;
  } catch {
    return 0;
  }
}

export class RequestJournal {
  private seq = 0;
  /**
   * The requests folder's mtime as this run last left it, and how often another process has
   * changed the folder since this run began (see othersChanged).
   */
  private folderSeen: number;
  private foreignChanges = 0;
  private readonly file: string;
  private batches = 0;
  /** This run's journal file, open for appending (closed before the file is moved). */
  private fd: number | undefined;
  /** The inode of the open file. */
  private ino = 0;
  /** When this run last wrote to its file. */
  private lastWrite: Moment = { mono: 0, wall: 0 };
  /** An end line not written yet (see above). */
  private pending = '';
  private flushScheduled = false;

  constructor(
    readonly dir: string,
    readonly runId: string,
  ) {
    this.file = join(dir, journalName(runId));
    this.folderSeen = folderMtime(dir);
  }

  /**
   * How many times another process has changed the requests folder since this run began (one
   * look: a stat). A run that makes requests makes its journal file there, and removes it when
   * its requests are in request_log; so a run that began, spent requests, loaded windows and
   * ended while this one waited on a slow answer (or was stopped) is seen by this, though no
   * journal of it is left to list. The changes this run makes itself are not counted (ownChange).
   */
  othersChanged(): number {
    const now = folderMtime(this.dir);
    if (now !== this.folderSeen) {
      this.foreignChanges++;
      this.folderSeen = now;
    }
    return this.foreignChanges;
  }

  /** Whether another run journals beside this one now (otherRunsJournalling). */
  othersJournalling(): boolean {
    return otherRunsJournalling(this.dir, this.runId);
  }

  /**
   * Whether another run has been at work since this run began: it journals now, or it changed
   * the requests folder meanwhile (it may have ended since, having loaded what this run planned).
   */
  othersAtWorkSinceStart(): boolean {
    return this.othersChanged() > 0 || this.othersJournalling();
  }

  /**
   * Makes a change of this run's own to the requests folder (a file made, moved or removed):
   * a change of another's before it is counted first, then the folder's mtime after it is
   * taken as this run's.
   */
  ownChange<T>(change: () => T): T {
    this.othersChanged();
    try {
      return change();
    } finally {
      this.folderSeen = folderMtime(this.dir);
    }
  }

  /** ownChange for a change that takes a while (the slot lock, which may wait for another run's turn). */
  async ownChangeAsync<T>(change: () => Promise<T>): Promise<T> {
    this.othersChanged();
    try {
      return await change();
    } finally {
      this.folderSeen = folderMtime(this.dir);
    }
  }

  /** Records an attempt that is about to be sent (on disk when this returns); returns its id for `end`. */
  begin(attempt: AttemptStart): string {
    const id = `${this.runId}:${++this.seq}`;
    this.append(this.line(id, attempt, null, null));
    return id;
  }

  /** Records how an attempt ended (status 0: no response); written with the next start line. */
  end(id: string, attempt: AttemptStart, status: number, durationMs: number): void {
    this.pending += `${JSON.stringify(this.line(id, attempt, status, Math.round(durationMs)))}\n`;
    if (this.flushScheduled) return;
    this.flushScheduled = true;
    setImmediate(() => {
      this.flushScheduled = false;
      this.flushIfPossible(); // thrown here, a full disk's error would end the process
    });
  }

  /**
   * Records that an attempt begun was not sent after all (docpipe's own check refused it):
   * it leaves request_log, and the hourly budget, as if it had never begun.
   */
  withdraw(id: string, attempt: AttemptStart): void {
    this.pending += `${JSON.stringify({ ...this.line(id, attempt, 0, 0), withdrawn: true })}\n`;
    this.flush();
  }

  /** Writes a waiting end line now. */
  private flush(): void {
    if (this.pending === '') return;
    this.write('');
  }

  /**
   * Writes the waiting end lines if the disk lets it. On a full disk they stay waiting for a
   * later write (request_log takes an end line from a later file too): the start lines, which
   * the budget counts, are on disk already, and the next start line meets the failure where
   * it is handled (its request is not sent).
   */
  private flushIfPossible(): void {
    try {
      this.flush();
    } catch {
      // as above
    }
  }

  private line(id: string, attempt: AttemptStart, status: number | null, durationMs: number | null): JournalLine {
    return {
      id,
      run_id: this.runId,
      scope: attempt.scope,
      method: attempt.method,
      path: attempt.path,
      started_ms: attempt.startedAt,
      status,
      duration_ms: durationMs,
    };
  }

  private append(line: JournalLine): void {
    this.write(`${JSON.stringify(line)}\n`);
  }

  /** Writes `text` after any waiting end line, in one write. */
  private write(text: string): void {
    // A run stopped long enough to be taken for gone (./liveness.ts) finds its file moved
    // into request_log by another run: its next lines go to a fresh file, not after it. Only
    // a run that has not written for a while can have been taken for gone (its heartbeat
    // beats while it runs), so the file is looked at only then, not at every attempt.
    const started = moment();
    if (this.fd !== undefined && longerAgo(this.lastWrite, RECHECK_AFTER_MS) && !this.stillMine()) this.letGo();
    this.lastWrite = started;
    if (this.fd === undefined) {
      // The file names this process: processes elsewhere tell it alive by its heartbeat.
      startHeartbeat(dirname(this.dir));
      this.fd = this.ownChange(() => {
        makeFolders(this.dir);
        return openSync(this.file, 'a');
      });
      this.ino = fstatSync(this.fd).ino;
      openJournals.set(this.file, this);
    }
    const all = this.pending + text;
    // Whole or not at all: a line cut short by a full disk would lose its request from
    // request_log (and the line after it). The end lines waiting stay waiting.
    appendWholeSync(this.fd, all);
    this.pending = '';
    // Stopped within this write long enough to be taken for gone: the file may have been moved
    // into request_log meanwhile, and the lines have gone after it. They go into a fresh file
    // too (request_log takes an attempt once, by its id).
    if (longerAgo(started, RECHECK_AFTER_MS) && !this.stillMine()) {
      this.letGo();
      this.write(all);
    }
  }

  /** Whether the open file is still this run's journal file (not moved by another process). */
  private stillMine(): boolean {
    try {
      return statSync(this.file).ino === this.ino;
    } catch {
      return false;
    }
  }

  /** Closes this run's file (after writing a waiting end line); the next attempt reopens (or recreates) it. */
  close(): void {
    this.flushIfPossible();
    this.letGo();
  }

  /** Lets go of the open file, writing nothing. */
  private letGo(): void {
    if (this.fd === undefined) return;
    closeSync(this.fd);
    this.fd = undefined;
    openJournals.delete(this.file);
  }

  /** Every attempt in every journal file (this run's and any other's), merged. */
  lines(): JournalLine[] {
    this.flush();
    const lines: JournalLine[] = [];
    for (const name of this.files()) {
      let text: string;
      try {
        text = readFileSync(join(this.dir, name), 'utf8');
      } catch {
        continue; // moved meanwhile
      }
      lines.push(...parseJournalText(text));
    }
    return mergeJournalLines(lines);
  }

  private files(): string[] {
    try {
      return readdirSync(this.dir).filter((name) => JOURNAL_FILE.test(name));
    } catch {
      return [];
    }
  }

  /**
   * Sets aside the files this process may move into the database: its own, and those of
   * processes that are gone. Returns their paths for `ingest` and `settle`.
   */
  take(): string[] {
    // Appends after the rename must go to a fresh file, not follow the moved one.
    this.close();
    const taken: string[] = [];
    for (const name of this.files()) {
      const owner = journalOfLiveProcess(name, this.dir);
      if (owner?.live && !owner.mine) continue;
      const path = join(this.dir, name);
      if (held.has(path)) continue;
      if (name.endsWith('.ingesting')) {
        taken.push(path);
        continue;
      }
      // Another run of this process appending to it goes on in a fresh file, as this one does.
      openJournals.get(path)?.close();
      // A name no file has: an earlier batch of this process may still be held, and a run
      // killed during a write leaves the part that write had taken under such a name, which
      // a rename onto it would overwrite (the database is held meanwhile, so no other
      // process takes files).
      let target = `${path}.${++this.batches}.ingesting`;
      while (existsSync(target)) target = `${path}.${++this.batches}.ingesting`;
      try {
        this.ownChange(() => renameSync(path, target));
        taken.push(target);
      } catch {
        // taken by another process meanwhile
      }
    }
    for (const path of taken) held.add(path);
    return taken;
  }

  /**
   * Moves the taken files' attempts into request_log: new attempts are inserted, attempts
   * already there are skipped. An attempt's start and end lines can be in different files (a
   * write took the file while the request was in flight, and its end line went to a fresh
   * file): an end line whose start is already in request_log fills in that row's outcome
   * (and its scope: a connection never made leaves the budget's), and a withdrawn attempt's
   * start, if it is there already, is taken out again.
   */
  async ingest(tx: Executor, files: readonly string[]): Promise<void> {
    const lines: JournalLine[] = [];
    for (const file of files) lines.push(...parseJournalText(readFileSync(file, 'utf8')));
    const attempts = mergeJournalLines(lines);
    if (attempts.length === 0) return;
    // The attempts go in as one JSON parameter that DuckDB unpacks: read_json over the files
    // held the database about twice as long (for a write of a job's poll, 74 ms against 34).
    await tx.run(
      `MERGE INTO request_log
       USING (SELECT unnest(from_json($attempts, '${ATTEMPTS_JSON_TYPE}'), recursive := true)) a
          ON request_log.request_id = a.id
        WHEN MATCHED AND a.withdrawn
          THEN DELETE
        WHEN MATCHED AND request_log.status IS NULL AND a.status IS NOT NULL
          THEN UPDATE SET status = a.status, duration_ms = a.duration_ms, scope = a.scope
        WHEN NOT MATCHED AND NOT a.withdrawn
          THEN INSERT (started_at, scope, method, path, status, duration_ms, run_id, request_id)
               VALUES (make_timestamptz(a.started_ms * 1000), a.scope, a.method, a.path, a.status, a.duration_ms, a.run_id, a.id)`,
      {
        // A lone surrogate (a library caller's project id in a scope) would fail the whole
        // parameter in DuckDB's JSON reader, and with it every write after this one.
        attempts: JSON.stringify(
          wellFormed(attempts.map((a) => ({
            ...a,
            // A library caller's clock may give fractions of a millisecond.
            started_ms: Math.round(a.started_ms),
            status: a.status === null ? null : Math.round(a.status),
            duration_ms: a.duration_ms === null ? null : Math.round(a.duration_ms),
            withdrawn: a.withdrawn === true,
          }))),
        ),
      },
    );
  }

  /** After the commit: the moved files are gone. */
  settle(files: readonly string[]): void {
    for (const file of files) {
      this.ownChange(() => rmSync(file, { force: true }));
      held.delete(file);
    }
  }

  /** After a rollback: the files stay, for the next write to take. */
  release(files: readonly string[]): void {
    for (const file of files) held.delete(file);
  }
}
