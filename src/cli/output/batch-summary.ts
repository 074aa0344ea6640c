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
      // The run's request cap or hourly budget, or the API asking for quiet (a 429, a 503 with a
      // long Retry-After: maintenance): the message says which, so the line does not guess.
      return `\nstopped early: ${stopMessage}; run again to continue`;
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
