/**
 * Wires a run: the workspace (the database, held only while writing, and the spool beside
 * it), and the API session (the HTTP client, the request budget that every attempt passes
 * through, and the request journal that remembers every attempt from the moment it is made).
 * The library's runs and the CLI's commands share it.
 */
import { HttpClient, checkBaseUrl, type HttpClientOptions, type RequestInfo } from '../api/http-client.js';
import { RequestBudget, takeSlot } from '../api/request-budget.js';
import type { Clock } from '../core/clock.js';
import { probeKey } from '../api/agent.js';
import { HttpError } from '../core/errors.js';
import type { Logger } from '../core/logger.js';
import type { FailureBreaker } from '../api/failure-breaker.js';
import type { OpenOptions } from '../load/database.js';
import { RequestLog } from '../load/request-log.js';
import { Store } from '../load/store.js';
import { RequestJournal } from '../spool/request-journal.js';
import { Spool, spoolDirFor } from '../spool/spool.js';

export interface Workspace {
  store: Store;
  spool: Spool;
  journal: RequestJournal;
}

/** The database and its spool for one run; `logger` hears when the file is held by another process. */
export function createWorkspace(
  args: { db: string; lockTimeout: number },
  runId: string,
  logger: Logger,
  options: OpenOptions = {},
): Workspace {
  const dbPath = args.db;
  const spool = new Spool(spoolDirFor(dbPath));
  const journal = new RequestJournal(spool.requestsDir, runId);
  const store = new Store(
    dbPath,
    {
      ...options,
      lockTimeoutMs: args.lockTimeout * 1000,
      onLockWait: (holder) =>
        logger.warn('database busy', { db: dbPath, holder, detail: 'waiting for it to close the file' }),
    },
    journal,
  );
  return { store, spool, journal };
}

export interface SessionOptions {
  workspace: Workspace;
  /** The database was created by this run (Store.holdForStart): nothing to read of it for the budget yet. */
  newDatabase?: boolean;
  apiKey: string;
  baseUrl: string;
  /** Budget scope, e.g. `analytics` (per organization) or `agent:<project>`. */
  scope: string;
  perHour: number;
  maxRequests?: number | undefined;
  /** Longest wait for a slot before stopping with BudgetExhaustedError. @default 60_000 */
  maxWaitMs?: number;
  clock: Clock;
  /** Extra client settings (timeouts, backoff) for tests and benchmarks. */
  http?: Partial<Omit<HttpClientOptions, 'apiKey' | 'baseUrl' | 'clock' | 'beforeAttempt' | 'afterAttempt' | 'onRetry'>>;
  /** Requests that are not budgeted (polling) are still logged, under this scope. */
  budgeted?: (method: string) => boolean;
  /** Stops the run after failed attempts in a row (analytics: the budget is the organization's). */
  breaker?: FailureBreaker;
  /** Hears every retry and every wait for the budget. */
  logger?: Logger;
  /** Told before the run sleeps for the hourly budget. @default a log line */
  onWait?: (wait: BudgetWait) => void;
  /** What the user can do when the budget stops the run (see RequestBudgetOptions.hints). */
  budgetHints?: { hourly?: string; cap?: string };
  /**
   * A project the key may be checked against (an unbudgeted GET of a job that does not
   * exist) before the run first waits for, or stops on, the hourly budget. Without it a
   * wrong key would only show once the budget allows a request, possibly never.
   */
  keyCheckProject?: string;
}

/** A wait for the hourly budget, as logged. */
export interface BudgetWait {
  scope: string;
  wait_ms: number;
  used_last_hour: number;
  per_hour: number;
  resumes_at: string;
}

export interface Session {
  client: HttpClient;
  budget: RequestBudget;
  stats: { retries: number; attempts: number };
}

/** Pure: whether an answer shows the API accepted the key (it answered the request itself). */
export function provesKey(status: number): boolean {
  return status >= 200 && status < 500 && status !== 401 && status !== 403 && status !== 429;
}

/** A request's attempt as journalled before it is sent: its journal id, and what the journal recorded. */
type JournalledAttempt = { id: string; attempt: RequestInfo & { scope: string; startedAt: number } };

export function createSession(options: SessionOptions): Session {
  const { store, journal } = options.workspace;
  const log = new RequestLog(store, journal, options.newDatabase ?? false);
  log.sweepStaleLock();
  const stats = { retries: 0, attempts: 0 };
  const budgeted = options.budgeted ?? (() => true);
  // The scope names the API host, so that a sandbox run never eats the real budget.
  const origin = checkBaseUrl(options.baseUrl).origin;
  const counted = (request: RequestInfo): boolean => budgeted(request.method) && request.unbudgeted !== true;
  const scopeOf = (request: RequestInfo): string => `${options.scope}${counted(request) ? '' : ':unbudgeted'}@${origin}`;
  // Set once an answer shows the API took the key; until then a budget wait checks it first.
  let keyAccepted = false;
  const checkKeyBeforeWait = async (signal: AbortSignal | undefined): Promise<void> => {
    if (keyAccepted || options.keyCheckProject === undefined) return;
    keyAccepted = true; // one check a run, whatever its outcome
    const outcome = await probeKey(client, options.keyCheckProject, signal);
    logger?.debug('key checked before waiting for the budget', { outcome });
  };
  const budget = new RequestBudget({
    scope: `${options.scope}@${origin}`,
    perHour: options.perHour,
    maxRequests: options.maxRequests ?? Number.POSITIVE_INFINITY,
    maxWaitMs: options.maxWaitMs ?? 60_000,
    clock: options.clock,
    history: log,
    ...(options.budgetHints ? { hints: options.budgetHints } : {}),
    beforeWait: checkKeyBeforeWait,
    onWait: ({ ms, usedLastHour }) => {
      const wait: BudgetWait = {
        scope: `${options.scope}@${origin}`,
        wait_ms: ms,
        used_last_hour: usedLastHour,
        per_hour: options.perHour,
        resumes_at: new Date(options.clock.now() + ms).toISOString(),
      };
      if (options.onWait) options.onWait(wait);
      else options.logger?.info('waiting for the hourly budget', { ...wait });
    },
  });
  const { breaker, logger } = options;
  const client = new HttpClient({
    ...options.http,
    apiKey: options.apiKey,
    baseUrl: options.baseUrl,
    clock: options.clock,
    beforeAttempt: async (request, signal) => {
      breaker?.check();
      // Journalled before it is sent: the budget stays exact whatever happens next.
      const journalled = (): JournalledAttempt => {
        const attempt = { ...request, scope: scopeOf(request), startedAt: options.clock.now() };
        return { id: journal.begin(attempt), attempt };
      };
      if (!counted(request)) return journalled();
      return takeSlot(budget, journalled, ({ id, attempt }) => journal.withdraw(id, attempt), signal);
    },
    afterAttempt: (response, token) => {
      const { id, attempt } = token as JournalledAttempt;
      if (response.withdrawn) {
        // Refused by the request's own check (another run took the prompt): nothing was sent.
        journal.withdraw(id, attempt);
        if (counted(attempt)) budget.refund(attempt.startedAt);
        return;
      }
      stats.attempts++;
      if (provesKey(response.status)) keyAccepted = true;
      if (response.notSent) {
        // A connection never made (refused, unknown host) reached no server: logged under a
        // scope of its own, not counted in the hour, and its slot given back. It is not the
        // API failing either: once its retries are spent the client ends the run with
        // "cannot connect" (exit 1), not the breaker's exit 75.
        journal.end(id, { ...attempt, scope: `${options.scope}:not-sent@${origin}` }, response.status, response.durationMs);
        if (counted(attempt)) budget.refund(attempt.startedAt);
        return;
      }
      breaker?.record(response.status, response.badBody === true);
      journal.end(id, attempt, response.status, response.durationMs);
    },
    onRetry: (error, attempt, delay) => {
      stats.retries++;
      const status = error instanceof HttpError ? error.status : undefined;
      logger?.warn('retrying request', {
        method: 'method' in error ? error.method : undefined,
        path: 'url' in error ? error.url : undefined,
        ...(status === undefined ? { error: error.message } : { status }),
        attempt,
        wait: delay.kind,
        wait_ms: delay.ms,
      });
    },
  });
  return { client, budget, stats };
}
