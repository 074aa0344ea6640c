import { type Metric } from '../core/domain.js';
import { type Grain } from './windows.js';
import type { Window } from '../core/domain.js';
/** The project id the shipped `pipelines/nightly.json` carries until someone edits it. */
export declare const PLACEHOLDER_PROJECT = "your-project-id";
export type SyncGrain = Exclude<Grain, 'range'>;
export interface PipelineConfig {
    projects: string[];
    metrics: Metric[];
    start: string;
    /** The grains to keep, coarsest first (`window`, or the `windows` list). */
    grains: SyncGrain[];
    lookbackDays: number;
    requestsPerHour: number;
    maxRequestsPerRun: number | undefined;
}
export interface PipelineCheck {
    config: PipelineConfig | undefined;
    warnings: string[];
    errors: string[];
}
/**
 * Pure: each field checked on its own, so that one bad field does not hide the others; the
 * rules then run on every field that passed.
 */
export declare function checkPipelineConfig(json: unknown): PipelineCheck;
/**
 * The projects a sync runs for: `--project` (or DOCPIPE_PROJECT) replaces the file's list.
 * The shipped placeholder id is refused with a line that says what to edit.
 */
export declare function resolveSyncProjects(config: PipelineConfig, override: readonly string[] | undefined, file: string): string[];
/** The closed windows of one grain of a sync, as of `now`. */
export declare function planSyncWindows(config: Pick<PipelineConfig, 'start'>, grain: SyncGrain, now: number): Window[];
/** One series of a sync: a metric of a project at one grain, with its closed windows. */
export interface SyncSeries {
    metric: Metric;
    projectId: string;
    grain: SyncGrain;
    windows: Window[];
}
/**
 * Pure: what a sync of `config` covers as of `now`: each window aggregate at each of the
 * pipeline's grains, and each event stream in day windows whatever the grains (its events
 * are fetched and replaced one day at a time). `sync` runs it; `status` reports on it.
 */
export declare function planSyncSeries(config: PipelineConfig, projects: readonly string[], now: number): SyncSeries[];
