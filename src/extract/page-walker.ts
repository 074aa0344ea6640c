/**
 * The page walker: reads one window's offset pages until `hasMore` is false. Offsets advance
 * by the rows received (not by `limit`), and anything that suggests the data moved under the
 * walk (a repeated path, totals that change between pages, an empty page that claims more)
 * restarts the walk, a bounded number of times, before the window is loaded with a warning.
 */
import { DataError } from '../core/errors.js';
import type { AnalyticsPage, ApiRow, Counts } from '../api/schemas.js';

export interface WalkOptions {
  /** Re-walks after drift before loading with a warning. @default 3 */
  maxRewalks?: number;
  /** Runaway guard: pages in one walk. @default 2_000 (500,000 rows) */
  maxPages?: number;
}

export interface WalkResult {
  rows: ApiRow[];
  totals: Counts;
  /** Pages read in all walks. */
  pages: number;
  /** Walks made (1 when nothing drifted). */
  walks: number;
  /** Drift that survived every re-walk; the rows are loaded with these warnings. */
  warnings: string[];
}

/** Reads the page at `offset`. */
export type PageFetcher = (offset: number) => Promise<AnalyticsPage>;

/** Pure: the next offset, or null when the walk is over. */
export function nextOffset(offset: number, page: AnalyticsPage): number | null {
  if (!page.hasMore) return null;
  return offset + page.rows.length;
}

function sameTotals(a: Counts, b: Counts): boolean {
  return a.human === b.human && a.ai === b.ai && a.total === b.total;
}

interface SingleWalk {
  rows: ApiRow[];
  totals: Counts;
  pages: number;
  drift: string[];
}

async function walkOnce(fetchPage: PageFetcher, maxPages: number, stopOnDrift: boolean): Promise<SingleWalk> {
  const rows: ApiRow[] = [];
  const seen = new Set<string>();
  const drift: string[] = [];
  let totals: Counts | undefined;
  let pages = 0;
  for (let offset: number | null = 0; offset !== null; ) {
    if (pages >= maxPages) {
      throw new DataError(`runaway paging: more than ${maxPages} pages (offset ${offset})`);
    }
    const page = await fetchPage(offset);
    pages++;
    if (totals === undefined) totals = page.totals;
    else if (!sameTotals(totals, page.totals)) drift.push(`totals changed at offset ${offset}`);
    for (const row of page.rows) {
      if (seen.has(row.path)) {
        drift.push(`path ${row.path} repeated at offset ${offset}`);
        continue; // keep the first copy
      }
      seen.add(row.path);
      rows.push(row);
    }
    if (page.rows.length === 0 && page.hasMore) {
      drift.push(`empty page with hasMore at offset ${offset}`);
      break; // the offset cannot advance
    }
    if (drift.length > 0 && stopOnDrift) break;
    offset = nextOffset(offset, page);
  }
  return { rows, totals: totals ?? { human: 0, ai: 0, total: 0 }, pages, drift };
}

export async function walkWindow(fetchPage: PageFetcher, options: WalkOptions = {}): Promise<WalkResult> {
  const maxRewalks = options.maxRewalks ?? 3;
  const maxPages = options.maxPages ?? 2_000;
  let pages = 0;
  for (let walk = 1; ; walk++) {
    const last = walk > maxRewalks;
    // Stop a drifting walk at once (requests are scarce) unless it is the last one allowed.
    const result = await walkOnce(fetchPage, maxPages, !last);
    pages += result.pages;
    if (result.drift.length === 0 || last) {
      const warnings =
        result.drift.length === 0
          ? []
          : [`data drifted during ${walk} walks; loaded the last walk: ${summarise(result.drift)}`];
      return { rows: result.rows, totals: result.totals, pages, walks: walk, warnings };
    }
  }
}

function summarise(drift: string[]): string {
  const shown = drift.slice(0, 3).join('; ');
  return drift.length > 3 ? `${shown}; and ${drift.length - 3} more` : shown;
}
