/**
 * Per-window progress: a bar redrawn in place on a terminal, one JSON log line per window
 * otherwise (cron, CI, pipes).
 */
import { formatDuration } from '../../core/duration.js';
import type { Logger } from '../../core/logger.js';
import type { WindowEvent } from '../../extract/run-export.js';

export interface Progress {
  start(total: number): void;
  window(event: WindowEvent): void;
  /** The run sleeps for the hourly budget: a log line, and the bar says so. */
  waiting(wait: { wait_ms: number } & Record<string, unknown>): void;
  done(): void;
}

/**
 * Pure: how long the windows left will take at the hourly budget, from the requests the
 * windows done so far took on average; undefined before the first window.
 */
export function estimateRemainingMs(done: number, total: number, requestsSoFar: number, perHour: number): number | undefined {
  if (done === 0 || done >= total || !Number.isFinite(perHour)) return undefined;
  return (((total - done) * requestsSoFar) / done / perHour) * 3_600_000;
}

function bar(done: number, total: number, width = 24): string {
  // More done than planned (a window the plan did not count) fills the bar, no more.
  const filled = total === 0 ? width : Math.min(width, Math.max(0, Math.round((done / total) * width)));
  return `[${'#'.repeat(filled)}${'.'.repeat(width - filled)}]`;
}

/**
 * @param isTTY whether stderr is a terminal: the bar is drawn only there. Text logs off a
 *   terminal report only warnings and failures; JSON logs report every window.
 */
export function createProgress(
  logger: Logger,
  write: (text: string) => void,
  isTTY: boolean,
  budget: { perHour: number; now: () => number } = { perHour: Number.POSITIVE_INFINITY, now: Date.now },
): Progress {
  let total = 0;
  let done = 0;
  let requests = 0;
  const terminal = logger.format === 'text' && isTTY;
  const quiet = logger.format === 'text' && !isTTY;
  return {
    start(n) {
      total = n;
    },
    window(event) {
      const where = { metric: event.metric, project: event.projectId, window_start: event.window.start, window_end: event.window.end };
      if (event.kind === 'busy') {
        if (terminal) write('\r\x1b[K');
        logger.warn('window skipped', { ...where, reason: event.detail });
        return;
      }
      done++;
      requests += event.requests;
      if (event.kind === 'failed') {
        if (terminal) write('\r\x1b[K');
        logger.error('window failed', { ...where, requests: event.requests, error: event.error });
      } else if (terminal || quiet) {
        if (event.warnings.length > 0) {
          if (terminal) write('\r\x1b[K');
          logger.warn('window loaded with warnings', { ...where, warnings: event.warnings });
        }
        const eta = estimateRemainingMs(done, total, requests, budget.perHour);
        const etaText = eta === undefined || eta < 60_000 ? '' : `, about ${formatDuration(eta)} left at ${budget.perHour} requests/h`;
        if (terminal) write(`\r\x1b[K${bar(done, total)} ${done}/${total} ${event.metric} ${event.window.start}..${event.window.end} ${event.rows} rows${etaText}`);
      } else {
        logger.info('window loaded', {
          ...where,
          reason: event.reason,
          rows: event.rows,
          pages: event.pages,
          requests: event.requests,
          walks: event.walks,
          warnings: event.warnings,
        });
      }
    },
    waiting(wait) {
      if (terminal) write('\r\x1b[K');
      logger.info('waiting for the hourly budget', wait);
      const at = new Date(budget.now() + wait.wait_ms).toISOString().slice(11, 16);
      if (terminal) write(`${bar(done, total)} ${done}/${total} waiting ${formatDuration(wait.wait_ms)} for the hourly budget (until ${at} UTC)`);
    },
    done() {
      if (terminal && done > 0) write('\n');
    },
  };
}
