/**
 * Response schemas, after ../shared/reference/*.json. Analytics pages are parsed strictly
 * (a page that breaks the schema is a DataError); agent jobs defensively, because the
 * OpenAPI file marks none of their fields required.
 */
import { z } from 'zod';
import { DataError } from '../core/errors.js';
import type { ApiRow, Counts, PageMetric } from '../core/domain.js';

const counts = { human: z.number(), ai: z.number(), total: z.number() };
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

export const TERMINAL_STATUSES: ReadonlySet<string> = new Set(['completed', 'archived', 'failed']);

/** An agent job as far as it could be read; every field may be missing. */
export interface AgentJob {
  id: string | null;
  /** The API's status string, kept even when it is not one we know. */
  status: string | null;
  repository: string | null;
  ref: string | null;
  model: string | null;
  prLink: string | null;
  createdAt: string | null;
  archivedAt: string | null;
}

const optionalString = z.string().nullish().catch(null);
const agentJobSchema = z.object({
  id: z.union([z.string(), z.number().transform(String)]).nullish().catch(null),
  status: optionalString,
  source: z.object({ repository: optionalString, ref: optionalString }).nullish().catch(null),
  model: optionalString,
  prLink: optionalString,
  createdAt: optionalString,
  archivedAt: optionalString,
});

/** Parses an AgentJob defensively; only a body that is not an object at all is an error. */
export function parseAgentJob(json: unknown, context: string): AgentJob {
  if (json === null || typeof json !== 'object' || Array.isArray(json)) {
    throw new DataError(`${context} returned an unexpected body (not an object)`);
  }
  const job = agentJobSchema.parse(json);
  return {
    id: job.id ?? null,
    status: job.status ?? null,
    repository: job.source?.repository ?? null,
    ref: job.source?.ref ?? null,
    model: job.model ?? null,
    prLink: job.prLink ?? null,
    createdAt: job.createdAt ?? null,
    archivedAt: job.archivedAt ?? null,
  };
}

export function isTerminalStatus(status: string | null): boolean {
  return status !== null && TERMINAL_STATUSES.has(status);
}
