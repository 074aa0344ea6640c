/**
 * Per-window progress: a bar redrawn in place on a terminal, one JSON log line per window
 * otherwise (cron, CI, pipes).
 */
import type { Logger } from '../../core/logger.js';
import type { WindowEvent } from '../../extract/run-export.js';

export interface Progress {
  start(total: number): void;
  window(event: WindowEvent): void;
  done(): void;
}

function bar(done: number, total: number, width = 24): string {
  const filled = total === 0 ? width : Math.round((done / total) * width);
  return `[${'#'.repeat(filled)}${'.'.repeat(width - filled)}]`;
}

/**
 * @param isTTY whether stderr is a terminal: the bar is drawn only there. Text logs off a
 *   terminal report only warnings and failures; JSON logs report every window.
 */
export function createProgress(logger: Logger, write: (text: string) => void, isTTY: boolean): Progress {
  let total = 0;
  let done = 0;
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
      if (event.kind === 'failed') {
        if (terminal) write('\r\x1b[K');
        logger.error('window failed', { ...where, requests: event.requests, error: event.error });
      } else if (terminal || quiet) {
        if (event.warnings.length > 0) {
          if (terminal) write('\r\x1b[K');
          logger.warn('window loaded with warnings', { ...where, warnings: event.warnings });
        }
        if (terminal) write(`\r\x1b[K${bar(done, total)} ${done}/${total} ${event.metric} ${event.window.start}..${event.window.end} ${event.rows} rows`);
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
    done() {
      if (terminal && done > 0) write('\n');
    },
  };
}
