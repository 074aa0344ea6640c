/** The lines under a job or message batch's table: what came of it, and why it stopped early. */
import { neutralise } from '../../core/neutralise.js';

/** `3 completed, 1 failed`: a batch's outcomes as a person reads them. */
export function countsLine(counts: Readonly<Record<string, number>>): string {
  return Object.entries(counts).map(([k, v]) => `${v} ${k}`).join(', ');
}

/**
 * The line under a batch's table that says why it stopped early, if it did (`left`: what a
 * fatal stop leaves for the next run). Empty when it ran out.
 */
export function stopLine(run: { stopped: string | null; stopMessage: string | null }, left: string): string {
  // The API's words (an error body) shown inert on a terminal.
  const stopMessage = neutralise(run.stopMessage ?? '');
  switch (run.stopped) {
    case 'budget':
      // The run's request cap stops submitting; a server asking for quiet (a poll's 429 past a
      // minute) stops following too: the words fit both.
      return `\nstopped on the request budget (${stopMessage}); run again to continue`;
    case 'interrupted':
      return '\ninterrupted; everything so far is saved, run again to resume';
    case 'fatal':
      return `\nstopped: ${stopMessage}; ${left}, run again to continue`;
    case null:
      return '';
    default:
      return `\nstopped: ${stopMessage}; run again to continue`;
  }
}
