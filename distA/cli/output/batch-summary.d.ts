/** The lines under a job or message batch's table: what came of it, and why it stopped early. */
/** `3 completed, 1 failed`: a batch's outcomes as a person reads them. */
export declare function countsLine(counts: Readonly<Record<string, number>>): string;
/**
 * The line under a batch's table that says why it stopped early, if it did (`verb`: what it
 * stopped doing; `left`: what a fatal stop leaves for the next run). Empty when it ran out.
 */
export declare function stopLine(run: {
    stopped: string | null;
    stopMessage: string | null;
}, verb: string, left: string): string;
