/**
 * Wires an API session: the HTTP client, the request budget that every attempt passes
 * through, and the request log that remembers attempts across runs.
 */
import { HttpClient, checkBaseUrl, type HttpClientOptions } from '../api/http-client.js';
import { RequestBudget } from '../api/request-budget.js';
import type { Clock } from '../core/clock.js';
import type { Database } from '../load/database.js';
import { RequestLog } from '../load/request-log.js';

export interface SessionOptions {
  db: Database;
  apiKey: string;
  baseUrl: string;
  /** Budget scope, e.g. `analytics` (per organization) or `agent:<project>`. */
  scope: string;
  perHour: number;
  maxRequests?: number | undefined;
  /** Longest wait for a slot before stopping with BudgetExhaustedError. @default 60_000 */
  maxWaitMs?: number;
  runId: string;
  clock: Clock;
  /** Extra client settings (timeouts, backoff) for tests and benchmarks. */
  http?: Partial<Omit<HttpClientOptions, 'apiKey' | 'baseUrl' | 'clock' | 'beforeAttempt' | 'afterAttempt' | 'onRetry'>>;
  /** Write each attempt to the request log at once. Exports flush it per window. @default true */
  autoFlushLog?: boolean;
  /** Requests that are not budgeted (polling) are still logged, under this scope. */
  budgeted?: (method: string) => boolean;
}

export interface Session {
  client: HttpClient;
  budget: RequestBudget;
  log: RequestLog;
  stats: { retries: number; attempts: number };
}

export function createSession(options: SessionOptions): Session {
  const log = new RequestLog(options.db, options.autoFlushLog ?? true);
  const stats = { retries: 0, attempts: 0 };
  const budgeted = options.budgeted ?? (() => true);
  // The scope names the API host, so that a sandbox run never eats the real budget.
  const origin = checkBaseUrl(options.baseUrl).origin;
  const scopeOf = (method: string): string =>
    `${options.scope}${budgeted(method) ? '' : ':unbudgeted'}@${origin}`;
  const budget = new RequestBudget({
    scope: `${options.scope}@${origin}`,
    perHour: options.perHour,
    maxRequests: options.maxRequests ?? Number.POSITIVE_INFINITY,
    maxWaitMs: options.maxWaitMs ?? 60_000,
    clock: options.clock,
    history: log,
  });
  const client = new HttpClient({
    ...options.http,
    apiKey: options.apiKey,
    baseUrl: options.baseUrl,
    clock: options.clock,
    beforeAttempt: async (request, signal) => {
      if (budgeted(request.method)) await budget.acquire(signal);
    },
    afterAttempt: async (response) => {
      stats.attempts++;
      await log.record({ ...response, scope: scopeOf(response.method), runId: options.runId });
    },
    onRetry: () => {
      stats.retries++;
    },
  });
  return { client, budget, log, stats };
}
