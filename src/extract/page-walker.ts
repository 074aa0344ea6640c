/**
 * The page walker: reads one window's pages until the endpoint's paging says it is over
 * (src/api/endpoints.ts: offset + `hasMore`, cursor + `hasMore`, a cursor that ends on null,
 * or a single page), putting every page body in the spool before the next request (DESIGN
 * rule 9). Offsets advance by the rows received (not by `limit`). Anything that suggests the data moved under the walk (a
 * repeated path, totals that change between pages, an empty page that claims more) restarts
 * the walk, a bounded number of times, before the window is loaded with a warning.
 *
 * A walk the spool already holds is picked up where it stopped: its pages are read back (not
 * fetched), and the walk resumes at the next offset. If the first page fetched then shows
 * other totals, the data moved since: that is drift, and the walk restarts. A walk stopped
 * because the server ignores its offset or cursor keeps no page it took with drift: the next
 * run walks the window from the start.
 */
import type { ReceivedPage } from '../api/analytics.js';
import {
  ENDPOINTS,
  nextPosition,
  parseEndpointPage,
  type PagePosition,
  type Paging,
  type WalkPage,
} from '../api/endpoints.js';
import type { Series, Totals, Window } from '../core/domain.js';
import { ApiFailingError, DataError, HttpError } from '../core/errors.js';
import type { CompletedWalk, SpooledPage, WalkState } from '../spool/spool.js';

/**
 * Pages in a row that claim more and are mostly rows seen before (WalkProgress.addsNothing)
 * before the walk concludes that the server ignores its offset or cursor and stops the run.
 */
export const MAX_IDLE_PAGES = 3;

export interface WalkOptions {
  /** Re-walks after drift, in one run, before loading with a warning. @default 3 */
  maxRewalks?: number;
  /** Runaway guard: pages in one walk. @default 2_000 (500,000 rows) */
  maxPages?: number;
}

/**
 * Reads the page at `at`: an offset, or a cursor (null for the first page). Declared as a
 * method so that a fetcher of one paging style (`(offset: number) => ...`) fits too.
 */
export type PageFetcher = { fetch(at: PagePosition): Promise<ReceivedPage> }['fetch'];

/** Where a walk keeps its pages: the spool (SpoolWalk), or anything with the same calls. */
export interface PageSink {
  state(): WalkState | null;
  begin(state: WalkState): void;
  /** The whole pages spooled so far, in walk order; a torn tail is cut off. */
  recover(): SpooledPage[];
  writePage(index: number, body: string): void;
  /** Keeps the first `count` pages. */
  truncate(count: number): void;
  /** Lets go of open files; the walk may still be resumed. */
  close(): void;
  complete(walk: CompletedWalk): void;
}

export interface WalkContext extends Series {
  window: Window;
  runId: string;
  now: () => number;
  /** Requests this run has spent on the window so far (retries included). */
  requestsSpent: () => number;
}

/** How the warning of a walk loaded with the drift its re-walks could not outrun begins. */
const DRIFT_WARNING = 'data drifted during ';

/** Pure: the warning of a completed walk whose last walk still drifted, if it has one. */
export function driftWarning(walk: CompletedWalk): string | undefined {
  return walk.warnings.find((w) => w.startsWith(DRIFT_WARNING));
}

/** Pure: the next offset, or null when the walk is over. */
export function nextOffset(offset: number, page: WalkPage): number | null {
  const next = nextPosition('offset', offset, page);
  return typeof next === 'number' ? next : null;
}

function sameTotals(a: Totals, b: Totals): boolean {
  const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
  return [...keys].every((k) => a[k] === b[k]);
}

/** Pure bookkeeping of one walk: where it is, what it has seen, and what looked like drift. */
export class WalkProgress {
  /** Offset paging: the next offset, null once the walk is over. */
  offset: number | null = 0;
  /** Cursor paging: the cursor of the next page (null: the first page). */
  cursor: string | null = null;
  private done = false;
  pages = 0;
  totals: Totals | undefined;
  repeatedPaths = false;
  readonly drift: string[] = [];
  /** Warnings the pages themselves gave (e.g. a truncated unpaged listing). */
  readonly pageWarnings: string[] = [];
  private readonly seen = new Set<string>();
  /** A fingerprint of each page taken (first path, last path, row count). */
  private readonly pageFingerprints = new Set<string>();
  /** Pages in a row, up to the last one taken, that claimed more and added no row (see addsNothing). */
  idlePages = 0;

  constructor(readonly paging: Paging = 'offset') {}

  get finished(): boolean {
    return this.done;
  }

  /** Where the next page is. */
  get position(): PagePosition {
    return this.paging === 'offset' ? (this.offset ?? 0) : this.cursor;
  }

  /** The position as the drift lines name it. */
  private get where(): string {
    return this.paging === 'offset' ? `offset ${this.offset ?? 0}` : `page ${this.pages + 1}`;
  }

  /** Distinct paths seen: the rows the window will have. */
  get rows(): number {
    return this.seen.size;
  }

  /** What the page at the current offset would show of drift, without taking it. */
  driftOf(page: WalkPage): string[] {
    const at = this.where;
    const found: string[] = [];
    if (this.totals !== undefined && !sameTotals(this.totals, page.totals)) found.push(`totals changed at ${at}`);
    const onPage = new Set<string>();
    for (const row of page.rows) {
      if (this.seen.has(row.path) || onPage.has(row.path)) {
        found.push(`${this.paging === 'offset' ? 'path' : 'row'} ${row.path} repeated at ${at}`);
        break; // one is enough to know
      }
      onPage.add(row.path);
    }
    if (page.rows.length === 0 && page.hasMore) found.push(`empty page with hasMore at ${at}`);
    return found;
  }

  /**
   * Whether the page is an earlier page again, row for row: the server ignores `offset`.
   * Drift moves a few rows across a page boundary; it does not serve the same page twice.
   */
  repeatsEarlierPage(page: WalkPage): boolean {
    const fingerprint = fingerprintOf(page);
    return fingerprint !== undefined && this.pageFingerprints.has(fingerprint);
  }

  /**
   * Whether the page claims more but is mostly rows this walk has seen (more than a quarter of
   * them): drift moves a few rows across a page boundary, while page after page of rows seen
   * before is a server that ignores where the walk is (it serves its listing again, in another
   * order each time: a random page of N paths repeats a quarter of its rows once the walk has
   * seen a quarter of them, after about N/870 pages).
   */
  addsNothing(page: WalkPage): boolean {
    if (!page.hasMore || page.rows.length === 0) return false;
    let seen = 0;
    for (const row of page.rows) if (this.seen.has(row.path)) seen++;
    return seen * 4 > page.rows.length;
  }

  /**
   * Takes the page at the current offset (drift and all) and moves on. `drift` is what
   * `driftOf` found on this page, when the caller has asked already.
   */
  accept(page: WalkPage, drift: readonly string[] = this.driftOf(page)): void {
    this.drift.push(...drift);
    this.pageWarnings.push(...(page.warnings ?? []));
    const fingerprint = fingerprintOf(page);
    if (fingerprint !== undefined) this.pageFingerprints.add(fingerprint);
    this.totals ??= page.totals;
    this.idlePages = this.addsNothing(page) ? this.idlePages + 1 : 0;
    for (const row of page.rows) {
      if (this.seen.has(row.path)) this.repeatedPaths = true;
      else this.seen.add(row.path);
    }
    const next = nextPosition(this.paging, this.position, page);
    this.pages++;
    // An empty page that claims more cannot move the offset: the walk ends here.
    this.done = next === undefined;
    if (this.paging === 'offset') this.offset = typeof next === 'number' ? next : null;
    else this.cursor = typeof next === 'string' ? next : null;
  }
}

function fingerprintOf(page: WalkPage): string | undefined {
  const first = page.rows[0];
  const last = page.rows.at(-1);
  return first && last ? `${page.rows.length}\u0000${first.path}\u0000${last.path}` : undefined;
}

function summarise(drift: readonly string[]): string {
  const shown = drift.slice(0, 3).join('; ');
  return drift.length > 3 ? `${shown}; and ${drift.length - 3} more` : shown;
}

/**
 * Reads the spooled pages of a walk back, as far as they can be trusted: a page that is torn
 * (the sink drops it) or does not fit the schema ends the replay, and it and every later page
 * are dropped, to be fetched again.
 */
function replay(sink: PageSink, context: WalkContext): WalkProgress {
  const progress = new WalkProgress(ENDPOINTS[context.metric].paging);
  for (const spooled of sink.recover()) {
    let page: WalkPage | undefined;
    if (!progress.finished) {
      try {
        page = parseEndpointPage(context.metric, spooled.body, `spooled page ${spooled.index}`);
      } catch {
        page = undefined;
      }
    }
    if (page === undefined) {
      sink.truncate(spooled.index);
      break;
    }
    progress.accept(page);
  }
  return progress;
}

/**
 * Walks a window into `sink` and returns the completed walk (also recorded in the sink).
 * Throws what the fetcher throws (budget, interrupt, HTTP errors): the pages spooled so far
 * stay, and the next walk of the window resumes from them.
 */
export async function walkWindow(
  fetchPage: PageFetcher,
  sink: PageSink,
  context: WalkContext,
  options: WalkOptions = {},
): Promise<CompletedWalk> {
  const maxRewalks = options.maxRewalks ?? 3;
  const maxPages = options.maxPages ?? 2_000;
  const paging = ENDPOINTS[context.metric].paging;
  const existing = sink.state();
  let state: WalkState;
  let progress: WalkProgress;
  // Requests of earlier runs on this walk are known only as the pages they left.
  let spentBefore: number;
  if (existing === null) {
    state = { walk: 1, startedAt: context.now(), pagesBefore: 0, requestsBefore: 0 };
    sink.begin(state);
    progress = new WalkProgress(paging);
    spentBefore = 0;
  } else {
    state = existing;
    progress = replay(sink, context);
    spentBefore = progress.pages;
    if (progress.pages === 0) {
      // Begun without a page (a run stopped before its first answer, or one that dropped its
      // pages): the data will be as of now, not as of when it began.
      state = { ...state, startedAt: context.now() };
      sink.begin(state);
    }
  }
  let spentAtBegin = context.requestsSpent();
  const requestsOfWalk = (): number => spentBefore + context.requestsSpent() - spentAtBegin;
  // Re-walks are bounded per run: a walk resumed from an earlier run's spool may restart (its
  // pages are from another day) however many re-walks that run made.
  const firstWalkOfRun = state.walk;
  const mayRewalk = (): boolean => state.walk - firstWalkOfRun < maxRewalks;
  const restart = (pagesLost: number): void => {
    state = {
      walk: state.walk + 1,
      startedAt: context.now(),
      pagesBefore: state.pagesBefore + progress.pages + pagesLost,
      requestsBefore: state.requestsBefore + requestsOfWalk(),
    };
    sink.begin(state);
    progress = new WalkProgress(paging);
    spentBefore = 0;
    spentAtBegin = context.requestsSpent();
  };

  /**
   * Before a stop on a server that ignores the offset or cursor: pages the walk took with drift
   * (its re-walks spent) are what that server served, not the window; they are dropped, and the
   * next run walks the window from the start. A walk clean so far keeps its pages.
   */
  const dropDrifted = (): void => {
    if (progress.drift.length > 0) restart(1);
  };

  try {
    while (!progress.finished) {
      if (progress.pages >= maxPages) {
        throw new DataError(`runaway paging: more than ${maxPages} pages (offset ${progress.offset ?? 0})`);
      }
      let received: ReceivedPage;
      try {
        received = await fetchPage(progress.position);
      } catch (error) {
        // A cursor the server no longer takes (it expired while the walk waited in the spool):
        // the walk starts over, like after drift, a bounded number of times.
        const cursorRefused = typeof progress.position === 'string' && error instanceof HttpError && error.status === 400;
        if (cursorRefused && mayRewalk()) {
          restart(0);
          continue;
        }
        throw error;
      }
      const { page, body } = received;
      if (progress.repeatsEarlierPage(page)) {
        // Re-walking cannot help: every walk would spend its requests on the same page.
        const what = paging === 'offset' ? 'offset' : 'cursor';
        const error = new ApiFailingError(
          `the API ignores ${what}: the page at ${what === 'offset' ? `offset ${progress.offset ?? 0}` : `page ${progress.pages + 1}`} of ${context.metric} ` +
            `${context.window.start}..${context.window.end} repeats an earlier page row for row` +
            `${page.hasMore ? ' and still claims hasMore' : ''}; stopped to keep the request budget`,
        );
        dropDrifted();
        throw error;
      }
      if (progress.idlePages + 1 >= MAX_IDLE_PAGES && progress.addsNothing(page)) {
        // Walking on could spend the hour's budget, and every later hour's, on this window.
        const what = paging === 'offset' ? 'offset' : 'cursor';
        const error = new ApiFailingError(
          `the API ignores ${what}: ${MAX_IDLE_PAGES} pages in a row of ${context.metric} ${context.window.start}..${context.window.end} ` +
            `(the last at ${what === 'offset' ? `offset ${progress.offset ?? 0}` : `page ${progress.pages + 1}`}) held mostly rows already seen ` +
            `and still claimed hasMore; stopped to keep the request budget`,
        );
        dropDrifted();
        throw error;
      }
      const drift = progress.driftOf(page);
      if (drift.length > 0 && mayRewalk()) {
        // Requests are scarce: stop a drifting walk at once and start the next one.
        restart(1);
        continue;
      }
      // On disk before the next request is sent.
      sink.writePage(progress.pages, body);
      progress.accept(page, drift);
    }

    // Drift of earlier walks was outrun; only drift that survived every re-walk is a warning.
    const drift = progress.drift;
    const completed: CompletedWalk = {
      metric: context.metric,
      projectId: context.projectId,
      window: context.window,
      fetchedAt: state.startedAt,
      runId: context.runId,
      totals: progress.totals ?? (paging === 'offset' ? { human: 0, ai: 0, total: 0 } : {}),
      rows: progress.rows,
      pages: state.pagesBefore + progress.pages,
      requests: state.requestsBefore + requestsOfWalk(),
      walks: state.walk,
      warnings: [
        ...(drift.length === 0 ? [] : [`${DRIFT_WARNING}${state.walk} walks; loaded the last walk: ${summarise(drift)}`]),
        ...new Set(progress.pageWarnings),
      ],
      repeatedPaths: progress.repeatedPaths,
    };
    // Recorded while the walk file is still open (one open a window).
    sink.complete(completed);
    return completed;
  } finally {
    sink.close();
  }
}
