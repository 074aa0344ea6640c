/**
 * The spool: received pages on disk beside the database (DESIGN rule 9), like dlt's load
 * packages. Every page body the API returns is written here before the next request, a
 * window is loaded from its spooled pages, and its spool is removed once the load commits.
 * A crash, a spent budget or a locked database therefore costs at most the request in
 * flight: the next run loads completed walks without a request and resumes the others.
 *
 *   <db>.spool/walks/<metric>/<project>/<start>_<end>.jsonl   one file a window's walk
 *   <db>.spool/requests/                                      the request journal (./request-journal.ts)
 *
 * A walk file is append-only JSON lines, one kind a line:
 *   {"walk": {...}}               the walk in progress: its number, when it started, what it cost before
 *   {"owner": {"pid", "host", "start"}}  the process walking or loading it (the last such line counts;
 *                                        `{"owner": null}`: let go by the run that held it;
 *                                 "start" tells a reused pid: ../core/process-identity.ts)
 *   {"page": n, "body": <body>}   page n as received, in walk order
 *   {"done": {...}}               the walk reached hasMore=false: ready to load
 * Lines of other kinds are skipped (a later docpipe may add some). One file, appended to,
 * costs a few writes a window: docpipe 0.2.0 kept four files in a folder per window, and the
 * file creations, renames and folder removals took 0.1 to 0.4 s of the event loop's time per
 * 90 windows. Its folders are still read, and turned into a walk file when claimed.
 *
 * A body is written as received unless it holds a line break (only whitespace can), when it
 * is written compact so that a line stays a page. A line is whole only with its line break:
 * a line that does not parse, or a page out of sequence, is where a crash tore the file, and
 * it and everything after it are cut off before the next append. Nothing is fsynced: a killed
 * process loses nothing the kernel has, and a page torn by a power cut is fetched again.
 */
import { randomUUID } from 'node:crypto';
import { tmpdir } from 'node:os';
import {
  closeSync,
  existsSync,
  fstatSync,
  linkSync,
  type Dirent,
  openSync,
  readFileSync,
  readdirSync,
  renameSync,
  rmSync,
  statSync,
  truncateSync,
  writeFileSync,
} from 'node:fs';
import { unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { isThisProcess, thisProcess, type ProcessRef } from '../core/process-identity.js';
import { recordAlive, startHeartbeat } from './liveness.js';
import { METRICS, type Metric, type Series, type Window, type Totals } from '../core/domain.js';
import { WalkTakenOverError } from '../core/errors.js';
import { appendWholeSync, makeFolders, tempPathOf } from '../core/files.js';
import { LONE_SURROGATE } from '../core/text-file.js';

let memorySpool: string | undefined;

/**
 * The spool of this process's `:memory:` databases. Nothing in it could be loaded after the
 * process (its databases go with it), so it goes at exit rather than pile up in the temp folder.
 */
function memorySpoolDir(): string {
  if (memorySpool === undefined) {
    const dir = join(tmpdir(), `docpipe-memory-spool-${process.pid}`);
    memorySpool = dir;
    process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
  }
  return memorySpool;
}

const SPOOL_SUFFIX = '.spool';

/** The spool folder of a database file (`:memory:` databases get one per process). */
export function spoolDirFor(dbPath: string): string {
  if (dbPath === ':memory:') return memorySpoolDir();
  return `${dbPath}${SPOOL_SUFFIX}`;
}

/** The database file whose spool folder spoolDirFor named `root`; undefined for a `:memory:` database's. */
export function databaseOfSpool(root: string): string | undefined {
  return root.endsWith(SPOOL_SUFFIX) ? root.slice(0, -SPOOL_SUFFIX.length) : undefined;
}

/** A JSON value with every lone surrogate in its strings (and keys) made U+FFFD, which DuckDB's JSON readers refuse. */
export function wellFormed(value: unknown): unknown {
  if (typeof value === 'string') return value.replace(LONE_SURROGATE, '\uFFFD');
  if (Array.isArray(value)) return value.map(wellFormed);
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k.replace(LONE_SURROGATE, '\uFFFD'), wellFormed(v)]));
  }
  return value;
}

/**
 * JSON text as JSON.parse reads it, in a form DuckDB's stricter reader takes too: a key given
 * twice keeps its last value (as JSON.parse does), and a lone surrogate escape (`"\ud800"`,
 * from text cut in the middle of a character) becomes U+FFFD. Every number keeps its text, as
 * writePage keeps it: a round trip through a JS number would make `1e400` null (a count
 * missing, not out of range) and round digits beyond a double's. Throws what JSON.parse throws.
 */
export function wellFormedJson(text: string): string {
  JSON.parse(text); // malformed text throws here, as it is
  const tag = `\uE000${randomUUID()}:`;
  const read = JSON.stringify(wellFormed(JSON.parse(numbersAsStrings(text, tag))));
  return read.replace(new RegExp(`"${tag}([^"]*)"`, 'g'), '$1');
}

/** Pure: valid JSON text with each number (outside strings) written as a string: `tag` and its text. */
function numbersAsStrings(text: string, tag: string): string {
  let out = '';
  let copied = 0;
  for (let at = 0; at < text.length; at++) {
    const c = text[at]!;
    if (c === '"') {
      while (text[++at] !== '"') if (text[at] === '\\') at++;
    } else if (c === '-' || (c >= '0' && c <= '9')) {
      let end = at + 1;
      while (end < text.length && /[0-9eE+\-.]/.test(text[end]!)) end++;
      out += `${text.slice(copied, at)}"${tag}${text.slice(at, end)}"`;
      copied = end;
      at = end - 1;
    }
  }
  return out + text.slice(copied);
}

/** A project id as one safe folder name (ids are the API's, not ours: `/`, `.` and `..` included). */
export function encodeSegment(value: string): string {
  return encodeURIComponent(value).replace(/\./g, '%2E').replace(/\*/g, '%2A');
}

/**
 * A name encodeSegment wrote, decoded; undefined for one it cannot have written (a `%` not
 * followed by two hex digits: a folder or file someone else put in the spool), which the
 * reader passes over instead of failing on.
 */
export function decodedSegment(name: string): string | undefined {
  try {
    return decodeURIComponent(name);
  } catch {
    return undefined;
  }
}

/** Writes a file so that it appears whole or not at all. */
export function writeFileAtomic(path: string, text: string): void {
  const tmp = tempPathOf(path);
  try {
    writeFileSync(tmp, text);
    renameSync(tmp, path);
  } catch (error) {
    // A full disk: no torn copy is left behind to fill it further.
    rmSync(tmp, { force: true });
    throw error;
  }
}

/**
 * Whether an owner record names a live process other than this one (`root`: the spool, where
 * processes elsewhere keep their heartbeat). One that cannot be told (another host, no start
 * recorded) is taken for live.
 */
export function isLiveOther(owner: ProcessRef | null, root: string, recordedAtMs?: number): boolean {
  if (!owner || isThisProcess(owner)) return false;
  return recordAlive(root, owner, recordedAtMs) !== false;
}

/** Whether the walk's owner (as `read` found it) is a live process other than this one. */
export function walkOwnerLive(file: WalkFile, root: string): boolean {
  return isLiveOther(file.owner, root, file.ownerRecordedAt);
}

/** How long a lock file with no holder in it yet is waited for (it is being written: microseconds). */
const HOLDER_WRITE_MS = 200;

/**
 * The text of a lock file that names its holder: a file created and not yet written (its
 * creator between the create and the write) is waited for, briefly and synchronously (this
 * happens only then). Null when the file is gone; text without a holder (`holder` null) after
 * the wait is a file whose creator was killed before it wrote: stale.
 */
export function readLockFile(path: string): { text: string; holder: ProcessRef | null } | null {
  const deadline = Date.now() + HOLDER_WRITE_MS;
  for (;;) {
    const text = readText(path);
    if (text === null) return null;
    const holder = parseJson<{ owner?: ProcessRef }>(text)?.owner ?? null;
    if (holder !== null || text.trim() !== '' || Date.now() >= deadline) return { text, holder };
    Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 5);
  }
}

/**
 * One run's hold on a spool file, as this process records it: a file's owner line names the
 * process, not the run, so two runs in one process (a library caller's) are told apart here.
 */
class RunHold {
  /** The paths runs of this process hold. */
  private static readonly paths = new Set<string>();
  private mine = false;

  constructor(readonly path: string) {}

  get held(): boolean {
    return this.mine;
  }

  /** Another run of this process holds the path. */
  get heldByOtherRun(): boolean {
    return !this.mine && RunHold.paths.has(this.path);
  }

  take(): void {
    RunHold.paths.add(this.path);
    this.mine = true;
  }

  release(): void {
    if (this.mine) RunHold.paths.delete(this.path);
    this.mine = false;
  }
}

/** Names the files this process sets aside (removeIfUnchanged) apart. */
let asideCount = 0;

/**
 * Removes the lock file at `path` if its text is still `judged` (what the caller judged
 * stale): renamed out of the way first, then removed. Two processes that judge one stale file
 * at once must not both remove by path: the second would remove the file the first had just
 * made. One that turns out to be another's is put back (unless a third made one meanwhile).
 * True when the path is free for the caller to create.
 */
export function removeIfUnchanged(path: string, judged: string): boolean {
  const aside = `${path}.${process.pid}-${++asideCount}.aside`;
  try {
    renameSync(path, aside);
  } catch {
    return true; // moved by another process meanwhile: try to make one
  }
  if (readText(aside) === judged) {
    rmSync(aside, { force: true });
    return true;
  }
  try {
    linkSync(aside, path);
  } catch {
    // a file made meanwhile stands
  }
  rmSync(aside, { force: true });
  return false;
}

/**
 * A claim file: created only if it does not exist, holding the claiming process. One that a
 * live process holds, or another run of this one, keeps what it claims theirs; one left by a
 * process that is gone (or by an earlier run of this one) is taken over. A walk's claim is a
 * short lock around writing the walk file's owner; an assistant thread's lasts until the
 * thread is loaded.
 */
export class SpoolClaim {
  private readonly hold: RunHold;

  constructor(
    readonly path: string,
    /** The spool the claim is in. */
    private readonly root: string,
  ) {
    this.hold = new RunHold(path);
  }

  /** Whether this run holds the claim (now, or from an earlier call). */
  take(): boolean {
    if (this.hold.held) return true;
    if (this.hold.heldByOtherRun) return false;
    for (let attempt = 0; attempt < 2; attempt++) {
      try {
        writeFileSync(this.path, ownerLine(this.root), { flag: 'wx' });
        this.hold.take();
        return true;
      } catch (error) {
        // Only a claim that is there is another's; out of files or space is this run's failure
        // (it was taken for a live claim: every window "walked by another run").
        const failure = error as NodeJS.ErrnoException;
        if (failure.code !== 'EEXIST') {
          // Made by this run and left empty by a failed write: not left for others to judge.
          if (failure.syscall === 'write') rmSync(this.path, { force: true });
          throw error;
        }
        const found = readLockFile(this.path);
        if (found === null) continue; // gone meanwhile: try again
        if (found.holder !== null && isLiveOther(found.holder, this.root)) return false;
        // A dead process's claim (or one whose creator was killed before it wrote it): out of
        // the way, unless another run took it meanwhile.
        if (!removeIfUnchanged(this.path, found.text)) return false;
      }
    }
    return false;
  }

  /**
   * Whether this run still holds the claim: the file names this process. Another run takes a
   * claim over only from a process it finds gone, so one stopped for longer than its heartbeat
   * lasts (SIGSTOP, a suspended machine) finds, when it goes on, that it holds it no more.
   */
  stillHeld(): boolean {
    if (!this.hold.held) return false;
    const holder = readJson<{ owner?: ProcessRef }>(this.path)?.owner ?? null;
    return holder !== null && isThisProcess(holder);
  }

  /** Lets another run of this process take it; the file stays (a process that is gone holds nothing). */
  release(): void {
    this.hold.release();
  }

  /**
   * Gives the claim up: the file goes, if it still names this process. One that another run
   * took over while this one was stopped (see stillHeld) is that run's, and stays.
   */
  remove(): void {
    const holder = readJson<{ owner?: ProcessRef }>(this.path)?.owner ?? null;
    if (holder !== null && isThisProcess(holder)) rmSync(this.path, { force: true });
    this.release();
  }
}

/** The state of a walk in progress, rewritten when a walk starts or restarts. */
export interface WalkState {
  /** 1 for the first walk; a drift restart makes the next. */
  walk: number;
  /** When the current walk's first page was requested (ms). */
  startedAt: number;
  /** Pages and requests spent on earlier walks of this window (and earlier runs). */
  pagesBefore: number;
  requestsBefore: number;
}

/** A walk that reached its end: what the loader needs beside the page files. */
export interface CompletedWalk {
  metric: Metric;
  projectId: string;
  window: Window;
  /** When the final walk started: the time the data is as of. */
  fetchedAt: number;
  runId: string;
  /**
   * The window-level numbers of the walk's pages: human/ai/total (visitors, views),
   * totalSearches (searches), web/api/other/total (caller stats), none for the rest.
   */
  totals: Totals;
  /** Distinct row identities: paths, search queries or event ids (the rows the window will have). */
  rows: number;
  pages: number;
  requests: number;
  walks: number;
  warnings: string[];
  /** The final walk saw a path twice: the loader keeps each path's first copy. */
  repeatedPaths: boolean;
}

/** One spooled page: its place in the walk and its body, parsed as JSON (not yet checked). */
export interface SpooledPage {
  index: number;
  body: unknown;
}

/** A walk file as far as it is whole, with the byte offsets a cut needs. */
export interface WalkFile {
  state: WalkState | null;
  owner: ProcessRef | null;
  pages: SpooledPage[];
  done: CompletedWalk | null;
  /** Byte offset where each page's line starts. */
  pageStarts: number[];
  /** Byte offset where the done line starts (null: none). */
  doneStart: number | null;
  /** Byte offset where the last owner line starts (null: none). */
  ownerStart: number | null;
  /** Bytes of whole lines; the file is torn when it has more. */
  end: number;
  torn: boolean;
  /** A 0.2.0 walk folder's: when its owner was written (its owner names no process start). */
  ownerRecordedAt?: number;
}

/** Pure: reads a walk file's text as far as it is whole (see the format above). */
export function parseWalkFile(text: string): WalkFile {
  const file: WalkFile = { state: null, owner: null, pages: [], done: null, pageStarts: [], doneStart: null, ownerStart: null, end: 0, torn: false };
  let at = 0;
  while (at < text.length) {
    const newline = text.indexOf('\n', at);
    if (newline < 0) break; // no line break: torn
    const line = text.slice(at, newline);
    let record: Record<string, unknown> | null;
    try {
      const parsed = JSON.parse(line) as unknown;
      record = parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : null;
    } catch {
      record = null;
    }
    if (record === null && line.trim() !== '') break;
    const start = file.end;
    if (record !== null) {
      if ('page' in record) {
        if (record.page !== file.pages.length || file.done !== null) break;
        file.pageStarts.push(start);
        file.pages.push({ index: file.pages.length, body: record.body });
      } else if ('walk' in record) {
        // A walk line starts the walk afresh (begin rewrites the file when there is more).
        file.state = record.walk as WalkState;
        file.pages = [];
        file.pageStarts = [];
        file.done = null;
        file.doneStart = null;
      } else if ('owner' in record) {
        file.owner = record.owner as ProcessRef;
        file.ownerStart = start;
      } else if ('done' in record) {
        file.done = reviveDone(record.done as CompletedWalk);
        file.doneStart = start;
      }
    }
    file.end = start + Buffer.byteLength(line) + 1;
    at = newline + 1;
  }
  file.torn = at < text.length;
  return file;
}

const line = (record: unknown): string => `${JSON.stringify(record)}\n`;

/**
 * The done line. A window's totals can be infinite (a count like `1e400` in the body), which
 * JSON cannot hold: they are spelled `"Infinity"` and `"-Infinity"`, so that a walk loaded
 * from the spool flags them `count_out_of_range`, as a walk loaded at once does, and not
 * `count_missing`.
 */
const doneLine = (walk: CompletedWalk): string => line({ done: { ...walk, totals: spellTotals(walk.totals) } });

function spellTotals(totals: Totals | undefined): Record<string, number | string | null> | undefined {
  if (!totals) return totals;
  return Object.fromEntries(Object.entries(totals).map(([k, v]) => [k, v !== null && Number.isFinite(v) ? v : v === null || Number.isNaN(v) ? null : String(v)]));
}

function reviveDone(done: CompletedWalk): CompletedWalk {
  const totals = done.totals as Record<string, unknown> | undefined;
  if (!totals) return done;
  const revive = (v: unknown): number | null => (v === 'Infinity' ? Infinity : v === '-Infinity' ? -Infinity : (v as number | null));
  return { ...done, totals: Object.fromEntries(Object.entries(totals).map(([k, v]) => [k, revive(v)])) };
}
/** This process's owner line; first, its heartbeat in the spool, by which processes elsewhere tell it alive. */
function ownerLine(root: string): string {
  startHeartbeat(root);
  return line({ owner: thisProcess() });
}

/** One window's walk in the spool: its walk file (or the folder docpipe 0.2.0 left). */
export class SpoolWalk {
  /** The walk file, open for appending while this process writes to it. */
  private fd: number | undefined;
  /**
   * Set when `claim` created the file (it holds only this process's owner line) until the
   * walk's first line goes in: `state` and `begin` then need not read it back (on this
   * machine's disk, an open cost about 0.2 ms; three a window showed in profiles).
   */
  private fresh = false;
  /** This run's hold on the walk file, from its claim until it is removed or released. */
  private readonly hold: RunHold;
  /** The walk file as this run left it: its inode, and its size after this run's last write. */
  private mark: { ino: number; size: number } | undefined;

  constructor(
    /** The folder of the window's project: the walk file is in it. */
    readonly dir: string,
    readonly series: Series,
    readonly window: Window,
    /** The spool the walk is in. */
    private readonly root: string,
  ) {
    this.hold = new RunHold(this.pagesFile);
  }

  private get name(): string {
    return `${this.window.start}_${this.window.end}`;
  }

  /** The walk file: the loader reads its page lines (other lines have no page). */
  get pagesFile(): string {
    return join(this.dir, `${this.name}.jsonl`);
  }

  /** The folder docpipe 0.2.0 kept the walk in (walk.json, owner, pages.jsonl, done.json). */
  get legacyDir(): string {
    return join(this.dir, this.name);
  }

  /** The walk as on disk (reading changes nothing). */
  read(): WalkFile {
    let text: string;
    try {
      text = readFileSync(this.pagesFile, 'utf8');
    } catch {
      return readLegacy(this.legacyDir) ?? parseWalkFile('');
    }
    return parseWalkFile(text);
  }

  /** The spooled pages in walk order, as far as they are whole (reading changes nothing). */
  pages(): SpooledPage[] {
    return this.read().pages;
  }

  /**
   * The whole pages, for a walk about to resume: a torn tail (a line that does not parse or
   * is out of sequence) is cut off, so that the next page appends after the whole ones.
   */
  recover(): SpooledPage[] {
    // Offsets are the walk file's: a 0.2.0 folder becomes one before it is read.
    this.upgradeLegacy();
    const file = this.read();
    if (file.torn) this.cut(file, file.end);
    return file.pages;
  }

  /**
   * Appends page `index`: on disk (in the kernel's hands) when this returns. A body laid out on
   * several lines goes on one: in JSON (the body parsed) a line break can only be whitespace
   * between tokens, so it becomes a space, and every number keeps its text (`1e400` stays out
   * of range instead of becoming `null`, as a round trip through JSON.parse would make it).
   */
  writePage(index: number, body: string): void {
    const text = body.includes('\n') || body.includes('\r') ? body.replace(/[\r\n]/g, ' ') : body;
    this.appendOwned(`{"page":${index},"body":${text}}\n`);
  }

  private append(text: string): void {
    this.fresh = false;
    if (this.fd === undefined) {
      makeFolders(this.dir);
      this.open('a');
    }
    const written = appendWholeSync(this.fd!, text);
    if (this.mark) this.mark.size += written;
  }

  /** Opens the walk file (`flags` as for openSync) and marks it as this run finds it. */
  private open(flags: 'a' | 'ax'): void {
    this.fd = openSync(this.pagesFile, flags);
    const { ino, size } = fstatSync(this.fd);
    this.mark = { ino, size };
  }

  /**
   * Appends a line of the walk this run is making, if the file is still as this run left it.
   * Another run takes a walk over only from a process it finds gone; one that was merely
   * stopped (SIGSTOP, a suspended machine) for longer than its heartbeat lasts finds, when it
   * goes on, that the file grew or was replaced meanwhile: it writes nothing more to it.
   */
  private appendOwned(text: string): void {
    this.checkOwned();
    this.append(text);
  }

  /**
   * Throws WalkTakenOverError if the walk file is no longer as this run left it (see
   * appendOwned). Another run's takeover always starts with its owner line appended to the
   * file as it is (a claim), so a size other than this run's last is the sign, whatever that
   * run did after (replaced the file on a restart, removed it after its load): one fstat of
   * the open file, or a stat of the path when this run has closed it.
   */
  private checkOwned(): void {
    if (this.mark === undefined) return;
    const same = this.fd !== undefined ? fstatSync(this.fd).size === this.mark.size : this.stillOwned();
    if (!same) {
      this.close();
      throw new WalkTakenOverError(`another docpipe run took over the walk of ${this.series.metric} ${this.series.projectId} [${this.window.start}, ${this.window.end})`);
    }
  }

  /**
   * Whether the walk file is still as this run last left it: the same file (inode) at the
   * size of its last write. True for a walk this run never wrote to.
   */
  stillOwned(): boolean {
    if (this.mark === undefined) return true;
    try {
      const now = statSync(this.pagesFile);
      return now.ino === this.mark.ino && now.size === this.mark.size;
    } catch {
      return false;
    }
  }

  /**
   * Rewrites the walk file as JSON.parse read its pages, numbers as written (wellFormedJson), for DuckDB's reader,
   * which refuses some bodies JSON.parse takes; a line that does not parse stays as it is. A
   * walk another run took over is left alone.
   */
  rewriteAsParsed(): void {
    if (!this.stillOwned()) return;
    let text: string;
    try {
      text = readFileSync(this.pagesFile, 'utf8');
    } catch {
      return;
    }
    const lines = text.split('\n').map((l) => {
      if (l === '') return l;
      try {
        return wellFormedJson(l);
      } catch {
        return l;
      }
    });
    this.close();
    writeFileAtomic(this.pagesFile, lines.join('\n'));
    const { ino, size } = statSync(this.pagesFile); // the new file as this run leaves it
    this.mark = { ino, size };
  }

  /** Closes the walk file (a later write reopens it). */
  close(): void {
    this.fresh = false;
    if (this.fd === undefined) return;
    closeSync(this.fd);
    this.fd = undefined;
  }

  /** Keeps the first `count` pages and drops the rest, and the done line (a torn or invalid page ends what can be trusted). */
  truncate(count: number): void {
    this.upgradeLegacy();
    const file = this.read();
    this.cut(file, file.pageStarts[count] ?? file.doneStart ?? file.end);
  }

  /** Cuts the walk file (as `file` read it) at byte `at`, keeping its latest owner line. */
  private cut(file: WalkFile, at: number): void {
    this.close();
    try {
      truncateSync(this.pagesFile, at);
    } catch {
      return; // no file: nothing to cut
    }
    this.open('a'); // the file as this run leaves it
    if (file.owner !== null && file.ownerStart !== null && file.ownerStart >= at) this.append(line({ owner: file.owner }));
  }

  state(): WalkState | null {
    return this.fresh ? null : this.read().state;
  }

  /** When the walk's file was last written (its mtime, on the system clock), or null if there is none. */
  writtenAt(): number | null {
    for (const file of [this.pagesFile, join(this.legacyDir, 'pages.jsonl'), this.legacyDir]) {
      const mtime = statSync(file, { throwIfNoEntry: false })?.mtimeMs;
      if (mtime !== undefined) return mtime;
    }
    return null;
  }

  /** Starts walk `state.walk` afresh: earlier pages go, the new state is recorded. */
  begin(state: WalkState): void {
    // A restart (drift) must not replace a file another run took over meanwhile.
    this.checkOwned();
    if (this.fresh) {
      this.append(line({ walk: state }));
      return;
    }
    this.upgradeLegacy();
    const file = this.read();
    if (file.pages.length === 0 && file.done === null && !file.torn) {
      this.append(line({ walk: state }));
      return;
    }
    // Earlier pages to drop: a new file with the state and the owner, in place at once.
    this.close();
    writeFileAtomic(this.pagesFile, line({ walk: state }) + (file.owner ? line({ owner: file.owner }) : ''));
    this.open('a'); // the new file as this run leaves it: a takeover before the next page shows
  }

  complete(walk: CompletedWalk): void {
    this.appendOwned(doneLine(walk));
    this.close();
  }

  completed(): CompletedWalk | null {
    return this.read().done;
  }

  owner(): ProcessRef | null {
    return this.read().owner;
  }

  /** Another run of this process has claimed the walk and not let go of it. */
  heldByOtherRun(): boolean {
    return this.hold.heldByOtherRun;
  }

  /** Takes the walk for this run, unless a live process or another run of this one holds it. */
  claim(): boolean {
    if (this.heldByOtherRun() || this.upgradeLegacy()) return false;
    this.close();
    makeFolders(this.dir);
    // Reading the owner and writing this process's must be one step: two runs that both read
    // a dead (or no) owner would both walk the window, into one file.
    const lock = new SpoolClaim(`${this.pagesFile}.claim`, this.root);
    if (!lock.take()) return false;
    try {
      try {
        this.open('ax');
      } catch (error) {
        // the file is there: its owner decides
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      }
      const created = this.fd !== undefined;
      try {
        if (!created) {
          const file = this.read();
          if (isLiveOther(file.owner, this.root)) return false;
          if (file.torn) this.cut(file, file.end);
        }
        this.append(ownerLine(this.root));
      } catch (error) {
        this.close(); // not held: nothing else would close it
        throw error;
      }
      this.fresh = created;
      this.hold.take();
      return true;
    } finally {
      lock.remove();
    }
  }

  /**
   * A walk docpipe 0.2.0 left as a folder becomes a walk file with the same state, pages and
   * end, so every later step sees one format. A live 0.2.0 process's walk is left alone: then
   * this says it is held.
   */
  private upgradeLegacy(): boolean {
    const legacy = readLegacy(this.legacyDir);
    if (legacy === null) return false;
    if (walkOwnerLive(legacy, this.root)) return true;
    if (!existsSync(this.pagesFile)) {
      // Its owner is gone (or its pid is another process's now): not carried over, so that
      // the file names no process until a run claims it.
      const text =
        (legacy.state ? line({ walk: legacy.state }) : '') +
        legacy.pages.map((p) => line({ page: p.index, body: p.body })).join('') +
        (legacy.done ? doneLine(legacy.done) : '');
      writeFileAtomic(this.pagesFile, text);
    }
    rmSync(this.legacyDir, { recursive: true, force: true });
    return false;
  }

  /**
   * Lets any other run claim the walk (a run that stops with the walk unfinished or
   * unloaded): its file stays, with a last owner line that names no process, so that a
   * process that lives on after its run (a library caller's) does not keep it from the
   * others. A walk another run took over meanwhile is left as it is.
   */
  release(): void {
    if (this.hold.held && this.mark !== undefined && this.stillOwned()) this.append(line({ owner: null }));
    this.close();
    this.hold.release();
  }

  /**
   * Removes the walk: its load committed, or it was discarded. A walk file another run took
   * over meanwhile (this one was stopped: see appendOwned) is the other run's, and stays.
   */
  remove(): void {
    this.close();
    if (this.stillOwned()) {
      rmSync(this.pagesFile, { force: true });
      rmSync(this.legacyDir, { recursive: true, force: true });
      this.mark = undefined; // no file of this run's now: a later walk starts afresh
    }
    this.release();
  }

  /**
   * `remove` on libuv's threads, off the event loop that fetches the next pages: one unlink
   * (`rm` would first lstat the path, with more of its work on the event loop).
   */
  async removeAsync(): Promise<void> {
    this.close();
    if (this.stillOwned()) {
      await unlink(this.pagesFile).catch((error: unknown) => {
        if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
      });
      this.mark = undefined;
    }
    this.release();
  }
}

/** A walk as docpipe 0.2.0 kept it: a folder with walk.json, owner, pages.jsonl and done.json. */
function readLegacy(dir: string): WalkFile | null {
  if (!existsSync(dir)) return null;
  let pagesText = '';
  try {
    pagesText = readFileSync(join(dir, 'pages.jsonl'), 'utf8');
  } catch {
    // no page yet
  }
  const file = parseWalkFile(pagesText);
  file.state = readJson<WalkState>(join(dir, 'walk.json'));
  file.owner = readJson<ProcessRef>(join(dir, 'owner'));
  const ownerAt = statSync(join(dir, 'owner'), { throwIfNoEntry: false })?.mtimeMs;
  if (ownerAt !== undefined) file.ownerRecordedAt = ownerAt;
  file.done = file.torn ? null : readJson<CompletedWalk>(join(dir, 'done.json'));
  return file;
}

/** A file's text, or null when it is not there (or cannot be read). */
export function readText(path: string): string | null {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return null;
  }
}

function parseJson<T>(text: string): T | null {
  try {
    return JSON.parse(text) as T;
  } catch {
    return null;
  }
}

function readJson<T>(path: string): T | null {
  const text = readText(path);
  return text === null ? null : parseJson<T>(text);
}

function entries(dir: string): Dirent[] {
  try {
    return readdirSync(dir, { withFileTypes: true });
  } catch {
    return [];
  }
}

/** A walk file (`<start>_<end>.jsonl`) or a 0.2.0 walk folder (`<start>_<end>`). */
const WALK_NAME = /^(\d{4}-\d{2}-\d{2})_(\d{4}-\d{2}-\d{2})(\.jsonl)?$/;

export class Spool {
  constructor(readonly root: string) {}

  get requestsDir(): string {
    return join(this.root, 'requests');
  }

  walk(series: Series, window: Window): SpoolWalk {
    return new SpoolWalk(join(this.root, 'walks', series.metric, encodeSegment(series.projectId)), series, window, this.root);
  }

  /** Every window walk in the spool (a 0.2.0 folder and a walk file of the same window count once). Folders it did not name are passed over. */
  walks(): SpoolWalk[] {
    const found = new Map<string, SpoolWalk>();
    for (const metric of METRICS) {
      const metricDir = join(this.root, 'walks', metric);
      for (const project of entries(metricDir)) {
        if (!project.isDirectory()) continue;
        // A folder docpipe did not name (a `%` not followed by two hex digits) holds no walk of its.
        const projectId = decodedSegment(project.name);
        if (projectId === undefined) continue;
        for (const entry of entries(join(metricDir, project.name))) {
          const match = WALK_NAME.exec(entry.name);
          if (!match || (match[3] === undefined) !== entry.isDirectory()) continue;
          const series = { metric, projectId };
          const window = { start: match[1]!, end: match[2]! };
          found.set(`${metric}/${project.name}/${window.start}_${window.end}`, this.walk(series, window));
        }
      }
    }
    return [...found.values()];
  }
}
