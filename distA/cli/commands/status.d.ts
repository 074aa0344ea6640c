import type { CommandModule } from 'yargs';
import { type SeriesStatus } from '../../extract/backlog.js';
import { type LastRun } from '../../load/status-read.js';
import { type CliContext } from '../context.js';
/** The report `status --format json` prints: its keys are stable (README lists them). */
export interface StatusReport {
    generatedAt: string;
    database: string;
    pipeline: string | null;
    budget: {
        scope: string;
        requestsPerHour: number;
        usedLastHour: number;
        freeNow: number;
        /** When the next request may start: now when a slot is free. */
        nextSlotAt: string;
    };
    lastRun: LastRun | null;
    spool: {
        walks: number;
        completedWalks: number;
        pages: number;
    };
    /**
     * Assistant threads the loaded conversations reference, and how many are fetched: each one
     * left costs a request of `export assistant --threads` (not in `backlogRequests`).
     */
    threads: {
        referenced: number;
        fetched: number;
        requestsLeft: number;
    };
    series: SeriesStatus[];
    backlogWindows: number;
    backlogRequests: number;
    /** When the backlog is done at the hourly budget (a `--wait` run); null with no pipeline file. */
    etaAt: string | null;
    /** Runs of the pipeline's `maxRequestsPerRun` the backlog needs (nightly runs from cron). */
    runsLeft: number | null;
    check: {
        maxAgeDays: number;
        stale: {
            projectId: string;
            metric: string;
            grain: string;
            dataAgeDays: number | null;
        }[];
    } | null;
}
export declare function statusCommand(ctx: CliContext): CommandModule;
