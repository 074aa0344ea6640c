/**
 * Response schemas, after ../shared/reference/*.json. Analytics pages are parsed strictly
 * (a page that breaks the schema is a DataError); agent jobs defensively, because the
 * OpenAPI file marks none of their fields required.
 */
import { z } from 'zod';
import { DataError } from '../core/errors.js';
import type { ApiRow, Counts, PageMetric } from '../core/domain.js';

/**
 * A count: any JSON number (JSON.parse turns `1e400` into Infinity) or null. One odd count
 * must not cost the window: the loader stores what no BIGINT can hold as NULL and flags it.
 * Every endpoint's counts are read so (visitors' and views', searches' hits, feedback by page,
 * caller stats).
 */
export const count = z.custom<number | null>((v) => v === null || (typeof v === 'number' && !Number.isNaN(v)), {
  message: 'expected a number or null',
});
const counts = { human: count, ai: count, total: count };
const totalsSchema = z.object(counts);
const rowSchema = z.object({ path: z.string(), ...counts });

const pageSchemas = {
  visitors: z.object({ totals: totalsSchema, visitors: z.array(rowSchema), hasMore: z.boolean() }),
  views: z.object({ totals: totalsSchema, views: z.array(rowSchema), hasMore: z.boolean() }),
} as const;

/** One page of `/visitors` or `/views`, with the metric's array under a common name. */
export interface AnalyticsPage {
  totals: Counts;
  rows: ApiRow[];
  hasMore: boolean;
}

function describeIssue(error: z.ZodError): string {
  const issue = error.issues[0];
  if (!issue) return 'invalid response';
  const where = issue.path.length > 0 ? issue.path.join('.') : 'body';
  return `${where}: ${issue.message}`;
}

export function parseAnalyticsPage(metric: PageMetric, json: unknown, context: string): AnalyticsPage {
  const result = pageSchemas[metric].safeParse(json);
  if (!result.success) {
    throw new DataError(`${context} returned an unexpected body (${describeIssue(result.error)})`);
  }
  const data = result.data;
  return {
    totals: data.totals,
    rows: 'visitors' in data ? data.visitors : data.views,
    hasMore: data.hasMore,
  };
}

/** The AgentJob statuses the API documents; any other is stored verbatim and followed like `active`. */
export const API_STATUSES = ['active', 'completed', 'archived', 'failed'] as const;
export const TERMINAL_STATUSES: ReadonlySet<string> = new Set(['completed', 'archived', 'failed']);

export function isKnownApiStatus(status: string | null): boolean {
  return status !== null && (API_STATUSES as readonly string[]).includes(status);
}

/** An agent job as far as it could be read; every field may be missing. */
export interface AgentJob {
  id: string | null;
  /** The API's status string, kept even when it is not one we know. */
  status: string | null;
  repository: string | null;
  ref: string | null;
  model: string | null;
  /** The pull request, when the API sent an http(s) URL. */
  prLink: string | null;
  /** What the API sent as `prLink` when it was not an http(s) URL (flagged, never stored as a link). */
  badPrLink: string | null;
  /** Why the job failed, when the API says (not documented: `error`, `errorMessage`, `failureReason` or `reason`). */
  reason: string | null;
  createdAt: string | null;
  archivedAt: string | null;
}

/** Whether a pull-request link is a link: an absolute http(s) URL. */
export function isHttpUrl(value: string): boolean {
  try {
    const url = new URL(value);
    return (url.protocol === 'https:' || url.protocol === 'http:') && url.hostname !== '';
  } catch {
    return false;
  }
}

const REASON_FIELDS = ['error', 'errorMessage', 'failureReason', 'reason'] as const;

/** The first reason field that holds text, or an object's `message`. */
function reasonOf(json: Record<string, unknown>): string | null {
  for (const field of REASON_FIELDS) {
    const value = json[field];
    if (typeof value === 'string' && value.trim() !== '') return value.trim();
    if (value && typeof value === 'object' && typeof (value as { message?: unknown }).message === 'string') {
      return (value as { message: string }).message.trim() || null;
    }
  }
  return null;
}

const optionalString = z.string().nullish().catch(null);
/** A field kept whatever its type: text as it is, anything else as its JSON text (never taken for none). */
const textOrJson = z.unknown().optional().transform((value) => (value === null || value === undefined ? null : typeof value === 'string' ? value : JSON.stringify(value)));
const agentJobSchema = z.object({
  id: z.union([z.string(), z.number().transform(String)]).nullish().catch(null),
  // A status that is not text (a number, an object) is kept as its JSON text, like any status
  // the API does not document: never taken for no status (then 'active', then timed_out).
  status: textOrJson,
  source: z.object({ repository: optionalString, ref: optionalString }).nullish().catch(null),
  model: optionalString,
  // A link that is not text (an object, a number) is kept as its JSON text: not a URL, so it is
  // flagged and logged, never dropped silently.
  prLink: textOrJson,
  createdAt: optionalString,
  archivedAt: optionalString,
});

/** A job known only by its id, its status and its link (what docpipe's books hold of it). */
export function bareJob(id: string, status: string | null, prLink: string | null = null): AgentJob {
  return { id, status, model: null, repository: null, ref: null, prLink, badPrLink: null, createdAt: null, archivedAt: null, reason: null };
}

/**
 * Whether a job id can name its job in a request path: not blank, and not `.` or `..`, which
 * a URL resolves away (a poll of job `..` would go to the project's own path). An answer with
 * any other id is an answer without one.
 */
export function usableJobId(id: string): boolean {
  const trimmed = id.trim();
  return trimmed !== '' && trimmed !== '.' && trimmed !== '..';
}

/** Parses an AgentJob defensively; only a body that is not an object at all is an error. */
export function parseAgentJob(json: unknown, context: string): AgentJob {
  if (json === null || typeof json !== 'object' || Array.isArray(json)) {
    throw new DataError(`${context} returned an unexpected body (not an object)`);
  }
  const job = agentJobSchema.parse(json);
  const link = job.prLink ?? null;
  const linkOk = link === null || isHttpUrl(link);
  return {
    id: job.id !== null && job.id !== undefined && usableJobId(job.id) ? job.id : null,
    status: job.status ?? null,
    repository: job.source?.repository ?? null,
    ref: job.source?.ref ?? null,
    model: job.model ?? null,
    prLink: linkOk ? link : null,
    badPrLink: linkOk ? null : link,
    reason: reasonOf(json as Record<string, unknown>),
    createdAt: job.createdAt ?? null,
    archivedAt: job.archivedAt ?? null,
  };
}

export function isTerminalStatus(status: string | null): boolean {
  return status !== null && TERMINAL_STATUSES.has(status);
}
