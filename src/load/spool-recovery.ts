/**
 * Recovering what a run left in the spool: walks that reached their end but were never
 * loaded (a spent budget, a locked database, a crash between the walk and its write). They
 * cost no request to load. `docpipe export` does this before it plans, `docpipe doctor --fix`
 * on demand; both go through here so that the two agree on which walks are theirs to load
 * and which the database has already overtaken.
 */
import type { LoadedWindow } from '../core/domain.js';
import { DatabaseBusyError, InterruptedError } from '../core/errors.js';
import { walkOwnerLive, type CompletedWalk, type Spool, type SpoolWalk } from '../spool/spool.js';
import type { Store } from './store.js';
import { loadWindows, type LoadOptions, type WindowLoad } from './window-store.js';

/** A completed walk and its folder in the spool. */
export interface SpooledCompletion {
  spooled: SpoolWalk;
  walk: CompletedWalk;
}

export interface WalkScan {
  /** Completed walks that no live process and no other run of this one holds. */
  completed: SpooledCompletion[];
  /** Some walk is held by a live process or another run of this one: runs overlap. */
  othersActive: boolean;
}

/** One pass over the spool's walks (each file read once). */
export function scanWalks(spool: Spool): WalkScan {
  const scan: WalkScan = { completed: [], othersActive: false };
  for (const spooled of spool.walks()) {
    const file = spooled.read();
    // A live owner is walking or loading it.
    if (spooled.heldByOtherRun() || walkOwnerLive(file, spool.root)) scan.othersActive = true;
    else if (file.done) scan.completed.push({ spooled, walk: file.done });
  }
  return scan;
}

/** Completed walks in the spool that no live process owns (a live owner is walking or loading it). */
export function findCompletedWalks(spool: Spool): SpooledCompletion[] {
  return scanWalks(spool).completed;
}

/** Pure: whether the database's copy of the window is at least as recent as the walk. */
export function isSuperseded(walk: Pick<CompletedWalk, 'fetchedAt'>, loaded: LoadedWindow | undefined): boolean {
  return loaded !== undefined && loaded.fetchedAt >= walk.fetchedAt;
}

export interface ClaimedWalks {
  /** Claimed by this process, to be loaded (then removed from the spool). */
  toLoad: SpooledCompletion[];
  /** The database already had the window from a fetch at least as recent: removed from the spool. */
  discarded: SpooledCompletion[];
  /** Claimed by a live process meanwhile: left alone. */
  busy: SpooledCompletion[];
}

/**
 * Claims each completed walk for this process and sorts it: a walk the database has
 * overtaken (`loadedOf` gives the window as loaded, if it is) is removed from the spool at
 * once; the others are this process's to load.
 */
export function claimCompletedWalks(
  completed: readonly SpooledCompletion[],
  loadedOf: (walk: CompletedWalk) => LoadedWindow | undefined,
): ClaimedWalks {
  const claimed: ClaimedWalks = { toLoad: [], discarded: [], busy: [] };
  for (const c of completed) {
    const have = loadedOf(c.walk);
    if (!c.spooled.claim()) {
      claimed.busy.push(c);
      continue;
    }
    if (isSuperseded(c.walk, have)) {
      c.spooled.remove();
      claimed.discarded.push(c);
      continue;
    }
    claimed.toLoad.push(c);
  }
  return claimed;
}

/** What the loader (./window-store.ts) needs of a completed walk in the spool. */
export function windowLoadOf(c: SpooledCompletion): WindowLoad {
  return { walk: c.walk, file: c.spooled.pagesFile };
}

/** What a load of spooled walks did: the walks loaded, the warnings recorded per window, and the walks that could not be loaded. */
export interface SpooledLoad<T extends SpooledCompletion = SpooledCompletion> {
  loaded: T[];
  warnings: Map<CompletedWalk, string[]>;
  /** Walks whose own pages DuckDB refuses (the error names their file), left in the spool. */
  failed: { walk: T; error: unknown }[];
}

const errorText = (error: unknown): string => {
  const parts: string[] = [];
  for (let at: unknown = error; at instanceof Error && parts.length < 5; at = at.cause) parts.push(at.message);
  return parts.join(' ');
};

/** Whether a load's error is a held file or a stop: the same for every walk, and no fault of any. */
const stopsTheLoad = (error: unknown): boolean => error instanceof DatabaseBusyError || error instanceof InterruptedError;

/**
 * Loads completed walks in one short write; returns the warnings recorded per window. DuckDB's
 * JSON reader refuses some bodies that JSON.parse, which the walk checked each page with,
 * takes: a lone surrogate escape (text cut in the middle of a character), a key given twice.
 * One such page fails its whole batch, and would fail it again in every later run (the walk
 * stays in the spool, loaded first). So a load that fails for any reason but a held file or
 * an interruption is tried once more, its walk files rewritten as JSON.parse read them. A load
 * that still fails on a walk's own pages (DuckDB names the file: a page damaged on disk, say)
 * loads every other walk of the batch alone, each in its write, and gives the failing ones
 * back: one walk never blocks the windows spooled beside it. Any other failure (a full disk)
 * is thrown, as it would fail every walk alike.
 */
export async function loadSpooledWalks<T extends SpooledCompletion>(store: Store, walks: readonly T[], options: LoadOptions = {}): Promise<SpooledLoad<T>> {
  const load = (some: readonly T[]): Promise<Map<CompletedWalk, string[]>> => store.write((tx) => loadWindows(tx, some.map(windowLoadOf), options));
  let error: unknown;
  try {
    return { loaded: [...walks], warnings: await load(walks), failed: [] };
  } catch (first) {
    if (stopsTheLoad(first)) throw first;
    try {
      for (const { spooled } of walks) spooled.rewriteAsParsed();
    } catch {
      // A full disk fails the rewrite too: the load's own error says what is wrong.
      throw first;
    }
    try {
      return { loaded: [...walks], warnings: await load(walks), failed: [] };
    } catch (second) {
      error = second;
    }
  }
  const names = (e: unknown, walk: T): boolean => errorText(e).includes(walk.spooled.pagesFile);
  if (stopsTheLoad(error) || !walks.some((w) => names(error, w))) throw error;
  const result: SpooledLoad<T> = { loaded: [], warnings: new Map(), failed: [] };
  for (const walk of walks) {
    try {
      for (const [w, lines] of await load([walk])) result.warnings.set(w, lines);
      result.loaded.push(walk);
    } catch (alone) {
      if (stopsTheLoad(alone) || !names(alone, walk)) throw alone;
      result.failed.push({ walk, error: alone });
    }
  }
  return result;
}
