/**
 * The domain types every layer shares: what is measured (metric), over which window, and the
 * rows and totals the API returns. The API, extract and load layers all import from here, so
 * none of them imports another's internals.
 */

/**
 * Every analytics endpoint docpipe exports, by its command-line name. Their paging, page
 * size, schema and table are declared in src/api/endpoints.ts.
 */
export const METRICS = ['visitors', 'views', 'feedback', 'feedback-by-page', 'searches', 'assistant', 'caller-stats'] as const;
export type Metric = (typeof METRICS)[number];

/** The offset-paged metrics with per-page rows and totals (the tables doctor checks). */
export const PAGE_METRICS = ['visitors', 'views'] as const satisfies readonly Metric[];
export type PageMetric = (typeof PAGE_METRICS)[number];

/** A half-open window of UTC dates, `YYYY-MM-DD`, sent as `dateFrom=start&dateTo=end`. */
export interface Window {
  readonly start: string;
  readonly end: string;
}

/** A window's identity in maps and logs: `start/end`. */
export function windowKey(window: Window): string {
  return `${window.start}/${window.end}`;
}

export const GRAINS = ['day', 'week', 'month', 'range'] as const;
export type Grain = (typeof GRAINS)[number];

/**
 * Pure: the grain of a window from its dates: a day, a week (Monday to Monday), a month (1st
 * to 1st), else a range (any other span). The same rule as views.sql's window_grain macro.
 */
export function grainOf(window: Window): Grain {
  const start = new Date(`${window.start}T00:00:00Z`);
  const days = Math.round((Date.parse(`${window.end}T00:00:00Z`) - start.getTime()) / 86_400_000);
  if (days === 1) return 'day';
  if (days === 7 && start.getUTCDay() === 1) return 'week';
  const nextMonth = new Date(Date.UTC(start.getUTCFullYear(), start.getUTCMonth() + 1, 1)).toISOString().slice(0, 10);
  if (start.getUTCDate() === 1 && window.end === nextMonth) return 'month';
  return 'range';
}

/**
 * Counts as the API sent them. Null, or a number no BIGINT can hold (beyond 64 bits, or
 * infinite), is kept here as received; the loader stores it as NULL and flags it. A type, not
 * an interface, so that it is also a Record of counts (a walk's totals).
 */
/** A page's totals, by name: visitors and views have human, ai and total; searches totalSearches. */
export type Totals = Readonly<Record<string, number | null>>;

export type Counts = {
  human: number | null;
  ai: number | null;
  total: number | null;
};

/** One row of `/visitors` or `/views`. */
export interface ApiRow extends Counts {
  path: string;
}

/** What is known of an earlier load of a window. */
export interface LoadedWindow extends Window {
  /** ms since the epoch */
  fetchedAt: number;
}

/** One metric of one project: the unit an export plans and loads windows for. */
export interface Series {
  metric: Metric;
  projectId: string;
}

/**
 * Whether a value is shaped like an admin key as a whole: `mint_` and at least 16 more key
 * characters, nothing else. A project id or a prompt id may begin with mint_ (`mint_docs`);
 * one this long and of nothing but key characters is a key pasted in the wrong place.
 */
export function isKeyShaped(value: string): boolean {
  return /^mint_[A-Za-z0-9_-]{16,}$/.test(value.trim());
}

/** A project id as a message may show it: one shaped like a key is not shown (see projectIdProblem). */
export function shownProjectId(id: string): string {
  return isKeyShaped(id) ? 'mint_…' : id;
}

/**
 * Pure: why `id` cannot be a project id, or undefined when it can. A project id is one path
 * segment of every API URL and names the spool's folders: `.`, `..`, a slash or a control
 * character would point somewhere else.
 */
export function projectIdProblem(id: string): string | undefined {
  if (id === '') return 'it is empty';
  // The key in the wrong place: it would go into logs, the spool's folder names and the URL.
  if (isKeyShaped(id)) return 'it is shaped like an API key (mint_ and a long tail), not a project id; the key goes in DOCPIPE_API_KEY';
  if (id === '.' || id === '..') return 'it is a relative path';
  if (/[/\\]/.test(id)) return 'it contains a slash';
  // eslint-disable-next-line no-control-regex -- control characters are what is refused
  if (/[\u0000-\u0020\u007f]/.test(id)) return 'it contains a space or a control character';
  if (/[?#%]/.test(id)) return 'it contains ?, # or %';
  // It names a folder of the spool: a file name holds 255 bytes.
  if (encodeURIComponent(id).length > 200) return 'it is too long (more than 200 characters, URL-encoded)';
  return undefined;
}
