/**
 * The spool: received pages on disk beside the database (DESIGN rule 9), like dlt's load
 * packages. Every page body the API returns is written here before the next request, a
 * window is loaded from its spooled pages, and its spool is removed once the load commits.
 * A crash, a spent budget or a locked database therefore costs at most the request in
 * flight: the next run loads completed walks without a request and resumes the others.
 *
 *   <db>.spool/walks/<metric>/<project>/<start>_<end>/
 *       owner              pid and host of the process walking or loading it
 *       walk.json          the walk in progress: its number, when it started, what it cost before
 *       pages.jsonl        one line a page, in walk order: {"page": n, "body": <the body as received>}
 *       done.json          written when the walk reached hasMore=false: ready to load
 *   <db>.spool/requests/   the request journal (./request-journal.ts)
 *
 * Pages are appended to one file per walk: creating a file per page cost ten times more
 * (inode and block allocation) than the append. A body is written as received unless it
 * holds a line break (only whitespace can), when it is written compact so that a line stays
 * a page. Bookkeeping files are written to a temporary name and renamed, so they appear whole
 * or not at all. Nothing is fsynced: a killed process loses nothing the kernel has, and a
 * page torn by a power cut does not parse on resume, so it and what follows are fetched again.
 */
import { hostname, tmpdir } from 'node:os';
import {
  closeSync,
  openSync,
  mkdirSync,
  readFileSync,
  readdirSync,
  renameSync,
  rmSync,
  writeFileSync,
  writeSync,
} from 'node:fs';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { METRICS, type Metric, type Series, type Window, type Totals } from '../core/domain.js';

/** The spool folder of a database file (`:memory:` databases get one per process). */
export function spoolDirFor(dbPath: string): string {
  if (dbPath === ':memory:') return join(tmpdir(), `docpipe-memory-spool-${process.pid}`);
  return `${dbPath}.spool`;
}

/** A project id as one safe folder name (ids are the API's, not ours: `/`, `.` and `..` included). */
export function encodeSegment(value: string): string {
  return encodeURIComponent(value).replace(/\./g, '%2E').replace(/\*/g, '%2A');
}

const PAGES_FILE = 'pages.jsonl';

/** Writes a file so that it appears whole or not at all. */
export function writeFileAtomic(path: string, text: string): void {
  const tmp = `${path}.${process.pid}.tmp`;
  writeFileSync(tmp, text);
  renameSync(tmp, path);
}

/** Whether a process is alive on this host (a process we may not signal is alive). */
export function isProcessAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

export interface Owner {
  pid: number;
  host: string;
}

/** Whether an owner record names a live process other than this one. */
export function isLiveOther(owner: Owner | null): boolean {
  if (!owner || (owner.pid === process.pid && owner.host === hostname())) return false;
  // A process on another host sharing the folder cannot be checked: treat it as live.
  return owner.host !== hostname() || isProcessAlive(owner.pid);
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

/** One window's folder in the spool. */
export class SpoolWalk {
  /** The pages file, open for appending while a walk writes to it. */
  private fd: number | undefined;

  constructor(
    readonly dir: string,
    readonly series: Series,
    readonly window: Window,
  ) {}

  /** The file of spooled pages, one JSON line a page (what the loader reads). */
  get pagesFile(): string {
    return join(this.dir, PAGES_FILE);
  }

  /** The spooled pages in walk order, as far as they are whole (reading changes nothing). */
  pages(): SpooledPage[] {
    return this.read().pages;
  }

  /**
   * The whole pages, for a walk about to resume: a line that does not parse or is out of
   * sequence (torn by a crash) and everything after it are cut off, so that the next page
   * appends after the whole ones.
   */
  recover(): SpooledPage[] {
    const { pages, torn } = this.read();
    if (torn) this.truncate(pages.length, pages);
    return pages;
  }

  private read(): { pages: SpooledPage[]; torn: boolean } {
    let text: string;
    try {
      text = readFileSync(this.pagesFile, 'utf8');
    } catch {
      return { pages: [], torn: false };
    }
    const pages: SpooledPage[] = [];
    const lines = text.split('\n');
    for (const [i, line] of lines.entries()) {
      if (line === '' && i === lines.length - 1) break;
      let record: { page?: unknown; body?: unknown } | undefined;
      try {
        record = JSON.parse(line) as { page?: unknown; body?: unknown };
      } catch {
        record = undefined;
      }
      if (record?.page !== pages.length) return { pages, torn: true };
      pages.push({ index: pages.length, body: record.body });
    }
    return { pages, torn: false };
  }

  /** Appends page `index`: on disk (in the kernel's hands) when this returns. */
  writePage(index: number, body: string): void {
    const text = body.includes('\n') || body.includes('\r') ? JSON.stringify(JSON.parse(body)) : body;
    if (this.fd === undefined) {
      mkdirSync(this.dir, { recursive: true });
      this.fd = openSync(this.pagesFile, 'a');
    }
    writeSync(this.fd, `{"page":${index},"body":${text}}\n`);
  }

  /** Closes the pages file (a later write reopens it). */
  close(): void {
    if (this.fd === undefined) return;
    closeSync(this.fd);
    this.fd = undefined;
  }

  /** Keeps the first `count` pages and drops the rest (a torn or invalid page ends what can be trusted). */
  truncate(count: number, whole: readonly SpooledPage[] = this.pages()): void {
    this.close();
    rmSync(join(this.dir, 'done.json'), { force: true });
    if (count === 0) {
      rmSync(this.pagesFile, { force: true });
      return;
    }
    const kept = whole.slice(0, count);
    writeFileAtomic(this.pagesFile, kept.map((p) => `${JSON.stringify({ page: p.index, body: p.body })}\n`).join(''));
  }

  state(): WalkState | null {
    return readJson<WalkState>(join(this.dir, 'walk.json'));
  }

  /** Starts walk `state.walk` afresh: earlier pages go, the new state is recorded. */
  begin(state: WalkState): void {
    mkdirSync(this.dir, { recursive: true });
    this.truncate(0);
    writeFileAtomic(join(this.dir, 'walk.json'), JSON.stringify(state));
  }

  complete(walk: CompletedWalk): void {
    this.close();
    writeFileAtomic(join(this.dir, 'done.json'), JSON.stringify(walk));
  }

  completed(): CompletedWalk | null {
    return readJson<CompletedWalk>(join(this.dir, 'done.json'));
  }

  owner(): Owner | null {
    return readJson<Owner>(join(this.dir, 'owner'));
  }

  /** Takes the walk for this process, unless a live process holds it. */
  claim(): boolean {
    if (isLiveOther(this.owner())) return false;
    mkdirSync(this.dir, { recursive: true });
    writeFileAtomic(join(this.dir, 'owner'), JSON.stringify({ pid: process.pid, host: hostname() } satisfies Owner));
    return true;
  }

  /** Removes the folder: its load committed, or it was discarded. */
  remove(): void {
    this.close();
    rmSync(this.dir, { recursive: true, force: true });
  }

  /** `remove` on libuv's threads, off the event loop that fetches the next pages. */
  async removeAsync(): Promise<void> {
    this.close();
    await rm(this.dir, { recursive: true, force: true });
  }
}

function readJson<T>(path: string): T | null {
  try {
    return JSON.parse(readFileSync(path, 'utf8')) as T;
  } catch {
    return null;
  }
}

function subdirs(dir: string): string[] {
  try {
    return readdirSync(dir, { withFileTypes: true })
      .filter((d) => d.isDirectory())
      .map((d) => d.name);
  } catch {
    return [];
  }
}

const WINDOW_DIR = /^(\d{4}-\d{2}-\d{2})_(\d{4}-\d{2}-\d{2})$/;

export class Spool {
  constructor(readonly root: string) {}

  get requestsDir(): string {
    return join(this.root, 'requests');
  }

  walk(series: Series, window: Window): SpoolWalk {
    const dir = join(this.root, 'walks', series.metric, encodeSegment(series.projectId), `${window.start}_${window.end}`);
    return new SpoolWalk(dir, series, window);
  }

  /** Every window folder in the spool. */
  walks(): SpoolWalk[] {
    const found: SpoolWalk[] = [];
    for (const metric of METRICS) {
      const metricDir = join(this.root, 'walks', metric);
      for (const project of subdirs(metricDir)) {
        for (const name of subdirs(join(metricDir, project))) {
          const match = WINDOW_DIR.exec(name);
          if (!match) continue;
          const series = { metric, projectId: decodeURIComponent(project) };
          found.push(this.walk(series, { start: match[1]!, end: match[2]! }));
        }
      }
    }
    return found;
  }
}
