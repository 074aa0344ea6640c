/** The lines under a job or message batch's table: what came of it, and why it stopped early. */
/** `3 completed, 1 failed`: a batch's outcomes as a person reads them. */
export function countsLine(counts) {
    return Object.entries(counts).map(([k, v]) => `${v} ${k}`).join(', ');
}
/**
 * The line under a batch's table that says why it stopped early, if it did (`verb`: what it
 * stopped doing; `left`: what a fatal stop leaves for the next run). Empty when it ran out.
 */
export function stopLine(run, verb, left) {
    switch (run.stopped) {
        case 'budget':
            return `\nstopped ${verb} on the request budget (${run.stopMessage ?? ''}); run again to continue`;
        case 'interrupted':
            return '\ninterrupted; everything so far is saved, run again to resume';
        case 'fatal':
            return `\nstopped: ${run.stopMessage ?? ''}; ${left}, run again to continue`;
        case null:
            return '';
        default:
            return `\nstopped: ${run.stopMessage ?? ''}; run again to continue`;
    }
}
//# sourceMappingURL=batch-summary.js.map