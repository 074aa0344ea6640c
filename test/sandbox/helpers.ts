/** Small HTTP helpers for the sandbox tests: real fetch against a real loopback server. */
import type { Sandbox } from '../../src/sandbox/server.js';

export interface Counts {
  human: number;
  ai: number;
  total: number;
}
export interface Row extends Counts {
  path: string;
}
export interface Page {
  totals: Counts;
  rows: Row[];
  hasMore: boolean;
}
export type Metric = 'visitors' | 'views';

/** 2026-03-15 is a Sunday; noon, so today is half over. */
export const NOW = Date.UTC(2026, 2, 15, 12, 0, 0);
export const DAY_MS = 86_400_000;

export function isoDay(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10);
}

/** The date `days` after `date` (YYYY-MM-DD). */
export function addDays(date: string, days: number): string {
  return isoDay(Date.parse(`${date}T00:00:00Z`) + days * DAY_MS);
}

export function authHeaders(sandbox: Sandbox): Record<string, string> {
  return { authorization: `Bearer ${sandbox.apiKey}` };
}

export async function getJson(sandbox: Sandbox, path: string): Promise<{ status: number; body: unknown; res: Response }> {
  const res = await fetch(`${sandbox.url}${path}`, { headers: authHeaders(sandbox) });
  return { status: res.status, body: await res.json(), res };
}

export async function postJson(
  sandbox: Sandbox,
  path: string,
  body: unknown,
): Promise<{ status: number; body: unknown; res: Response }> {
  const res = await fetch(`${sandbox.url}${path}`, {
    method: 'POST',
    headers: { ...authHeaders(sandbox), 'content-type': 'application/json' },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  return { status: res.status, body: await res.json(), res };
}

export function analyticsPath(
  metric: Metric,
  from: string,
  to: string,
  options: { limit?: number; offset?: number; project?: string } = {},
): string {
  const query = new URLSearchParams({ dateFrom: from, dateTo: to, limit: String(options.limit ?? 250) });
  if (options.offset !== undefined) query.set('offset', String(options.offset));
  return `/v1/analytics/${options.project ?? 'acme'}/${metric}?${query.toString()}`;
}

export async function getPage(
  sandbox: Sandbox,
  metric: Metric,
  from: string,
  to: string,
  options: { limit?: number; offset?: number; project?: string } = {},
): Promise<Page> {
  const { status, body } = await getJson(sandbox, analyticsPath(metric, from, to, options));
  if (status !== 200) throw new Error(`HTTP ${status}: ${JSON.stringify(body)}`);
  const json = body as { totals: Counts; hasMore: boolean } & Partial<Record<Metric, Row[]>>;
  return { totals: json.totals, rows: json[metric] ?? [], hasMore: json.hasMore };
}

/** Every page of a window, walked the way docpipe does: offset += rows received. */
export async function walkWindow(
  sandbox: Sandbox,
  metric: Metric,
  from: string,
  to: string,
  options: { limit?: number; project?: string } = {},
): Promise<{ pages: Page[]; rows: Row[]; totals: Counts }> {
  const pages: Page[] = [];
  let offset = 0;
  for (let guard = 0; guard < 1000; guard++) {
    const page = await getPage(sandbox, metric, from, to, { ...options, offset });
    pages.push(page);
    offset += page.rows.length;
    if (!page.hasMore) break;
  }
  const first = pages[0];
  if (!first) throw new Error('no pages');
  return { pages, rows: pages.flatMap((p) => p.rows), totals: first.totals };
}

export function byPath(rows: readonly Row[]): Map<string, Row> {
  return new Map(rows.map((r) => [r.path, r]));
}
