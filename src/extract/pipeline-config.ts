/**
 * The pipeline file of `docpipe sync`: checked as a schema, then normalised, then against
 * the rules, returning every problem at once rather than the first.
 */
import { z } from 'zod';
import { UsageError } from '../core/errors.js';
import { isEventStream } from '../api/endpoints.js';
import { METRICS, projectIdProblem, shownProjectId, type Metric } from '../core/domain.js';
import { MAX_LOOKBACK_DAYS } from './plan-export.js';
import { COARSE_FIRST, GRAINS, addDays, alignUp, parseDay, planClosedWindows, utcToday, yearProblem, type Grain } from './windows.js';
import type { Window } from '../core/domain.js';

/** The project id the shipped `pipelines/nightly.json` carries until someone edits it. */
export const PLACEHOLDER_PROJECT = 'your-project-id';

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

const FIELDS = {
  projects: z.array(z.string()).min(1),
  metrics: z.array(z.enum(METRICS)).min(1).default(['visitors', 'views']),
  start: z.string(),
  window: z.enum(GRAINS).optional(),
  windows: z.array(z.enum(GRAINS)).min(1).optional(),
  lookbackDays: z.number().int().min(0).max(MAX_LOOKBACK_DAYS).default(2),
  requestsPerHour: z.number().int().min(1).default(100),
  // 0 would make every nightly run stop at once with work left (exit 75), for ever: leave it out for no cap.
  maxRequestsPerRun: z.number().int().min(1).optional(),
};
type Fields = { [K in keyof typeof FIELDS]: z.infer<(typeof FIELDS)[K]> };

/**
 * Pure: each field checked on its own, so that one bad field does not hide the others; the
 * rules then run on every field that passed.
 */
/** The value at `path` inside `root` (undefined where there is none). */
function valueAt(root: unknown, path: readonly PropertyKey[]): unknown {
  let value = root;
  for (const key of path) value = value !== null && typeof value === 'object' ? (value as Record<PropertyKey, unknown>)[key] : undefined;
  return value;
}

/** ` (got "visitor")`: the bad value as the file has it, clipped; nothing for a missing one. */
function gotOf(value: unknown): string {
  if (value === undefined) return '';
  const text = JSON.stringify(value) ?? String(value);
  return ` (got ${text.length > 60 ? `${text.slice(0, 57)}...` : text})`;
}

/**
 * What a run puts in place of the file's budget fields: the command line's (or the
 * environment's) `--requests-per-hour` and `--max-requests`, a library caller's options; and
 * whether it waits for the budget (`--wait`), which no per-run cap of the file stops.
 */
export interface BudgetOverrides {
  requestsPerHour?: number | undefined;
  maxRequests?: number | undefined;
  waits?: boolean;
}

/**
 * Pure: the warning for a run whose cap is above its hourly budget (the budget stops it first),
 * with the values the run uses: the file's, or what `overrides` put in their place.
 */
function capWarning(file: { requestsPerHour: number; maxRequestsPerRun: number | undefined }, overrides: BudgetOverrides): string | undefined {
  // A run that waits for the budget is not stopped by it: it waits, and its cap ends it.
  if (overrides.waits) return undefined;
  const cap = overrides.maxRequests ?? file.maxRequestsPerRun;
  const perHour = overrides.requestsPerHour ?? file.requestsPerHour;
  if (cap === undefined || cap <= perHour) return undefined;
  const capName = overrides.maxRequests === undefined ? 'maxRequestsPerRun' : "the run's request cap";
  const hourName = overrides.requestsPerHour === undefined ? 'requestsPerHour' : 'the hourly budget';
  return `${capName} ${cap} exceeds ${hourName} ${perHour}: the hourly budget will stop the run first`;
}

/** Checks a pipeline file's JSON; its warnings speak of the values the run uses (`overrides`). */
export function checkPipelineConfig(json: unknown, overrides: BudgetOverrides = {}): PipelineCheck {
  if (json === null || typeof json !== 'object' || Array.isArray(json)) {
    return { config: undefined, warnings: [], errors: ['(top level): expected a JSON object'] };
  }
  const input = json as Record<string, unknown>;
  const errors: string[] = [];
  const warnings: string[] = [];
  const known = Object.keys(FIELDS);
  for (const key of Object.keys(input)) {
    if (!known.includes(key)) errors.push(`${key}: unknown field (expected ${known.join(', ')})`);
  }
  const raw: Partial<Fields> = {};
  for (const name of known as (keyof Fields)[]) {
    const parsed = FIELDS[name].safeParse(input[name]);
    if (parsed.success) (raw as Record<string, unknown>)[name] = parsed.data;
    else errors.push(...parsed.error.issues.map((i) => `${[name, ...i.path].join('.')}: ${i.message}${gotOf(valueAt(input[name], i.path))}`));
  }

  const projects = [...new Set((raw.projects ?? []).map((p) => p.trim()))];
  for (const id of projects) {
    const problem = projectIdProblem(id);
    if (problem) errors.push(`projects: invalid project id '${shownProjectId(id)}': ${problem}`);
  }
  if (raw.projects && projects.length < raw.projects.length) warnings.push('projects: duplicates ignored');
  const metrics = [...new Set(raw.metrics ?? [])];
  if (raw.window !== undefined && raw.windows !== undefined) errors.push('window, windows: give one of them, not both');
  const listed = raw.windows ?? [raw.window ?? 'day'];
  if (listed.includes('range')) {
    errors.push(`${raw.windows ? 'windows' : 'window'}: 'range' has no meaning for an incremental sync; use day, week or month`);
  }
  const grains = COARSE_FIRST.filter((g): g is SyncGrain => g !== 'range' && listed.includes(g));
  if (raw.start !== undefined) {
    try {
      const start = parseDay(raw.start, 'start');
      const typo = yearProblem(start, raw.start, 'start:');
      if (typo) errors.push(typo);
      // One grain: its windows start at `start`, which must be on its boundary. A list of
      // grains: each starts at its first boundary on or after `start`.
      if (raw.windows === undefined) {
        if (raw.window === 'week' && start.weekday !== 1) errors.push(`start: ${raw.start} is not a Monday (week windows start on Monday)`);
        if (raw.window === 'month' && start.day !== 1) errors.push(`start: ${raw.start} is not the 1st of a month`);
      }
    } catch (error) {
      errors.push(error instanceof Error ? error.message : String(error));
    }
  }
  if (raw.requestsPerHour !== undefined) {
    const overCap = capWarning({ requestsPerHour: raw.requestsPerHour, maxRequestsPerRun: raw.maxRequestsPerRun }, overrides);
    if (overCap !== undefined) warnings.push(overCap);
  }
  if (errors.length > 0 || raw.start === undefined || raw.lookbackDays === undefined || raw.requestsPerHour === undefined) {
    return { config: undefined, warnings, errors };
  }
  return {
    config: {
      projects,
      metrics,
      start: raw.start,
      grains,
      lookbackDays: raw.lookbackDays,
      requestsPerHour: raw.requestsPerHour,
      maxRequestsPerRun: raw.maxRequestsPerRun,
    },
    warnings,
    errors,
  };
}

/**
 * The projects a sync runs for: `--project` (or DOCPIPE_PROJECT) replaces the file's list.
 * The shipped placeholder id is refused with a line that says what to edit.
 */
export function resolveSyncProjects(config: PipelineConfig, override: readonly string[] | undefined, file: string): string[] {
  const projects = override && override.length > 0 ? [...new Set(override)] : config.projects;
  if (projects.includes(PLACEHOLDER_PROJECT)) {
    throw new UsageError(
      `pipeline file '${file}' still has the placeholder project id '${PLACEHOLDER_PROJECT}': ` +
        `put your project id in its "projects" list, or pass --project`,
    );
  }
  return projects;
}

/** The closed windows of one grain of a sync, as of `now`. */
export function planSyncWindows(config: Pick<PipelineConfig, 'start'>, grain: SyncGrain, now: number): Window[] {
  return planClosedWindows(alignUp(config.start, grain), grain, now);
}

/** One series of a sync: a metric of a project at one grain, with its closed windows. */
export interface SyncSeries {
  metric: Metric;
  projectId: string;
  grain: SyncGrain;
  windows: Window[];
}

/**
 * Pure: the warning for a `start` after today (UTC), when the sync plans nothing yet: cron's
 * log says so each night, not only an exit 0 with no window. Undefined otherwise.
 */
export function futureStartWarning(config: PipelineConfig, now: number): string | undefined {
  const today = utcToday(now);
  return config.start > today ? `start ${config.start} is after today (${today}, UTC): nothing to sync until then` : undefined;
}

/**
 * Pure: what a sync of `config` covers as of `now`: each window aggregate at each of the
 * pipeline's grains, and each event stream in day windows whatever the grains (its events
 * are fetched and replaced one day at a time). `sync` runs it; `status` reports on it.
 */
export function planSyncSeries(config: PipelineConfig, projects: readonly string[], now: number): SyncSeries[] {
  // A start a year or more ahead is a mistyped year (2062 for 2026): the sync would plan
  // nothing, and exit 0, every night until then.
  const today = utcToday(now);
  if (config.start > addDays(today, 366)) {
    throw new UsageError(`start: ${config.start} is more than a year after today (${today}, UTC): check the year`);
  }
  const aggregates = config.metrics.filter((m) => !isEventStream(m));
  const events = config.metrics.filter((m) => isEventStream(m));
  const series: SyncSeries[] = config.grains.flatMap((grain) => {
    const windows = planSyncWindows(config, grain, now);
    return projects.flatMap((projectId) => aggregates.map((metric) => ({ metric, projectId, grain, windows })));
  });
  if (events.length > 0) {
    const days = planSyncWindows(config, 'day', now);
    series.push(...projects.flatMap((projectId) => events.map((metric) => ({ metric, projectId, grain: 'day' as const, windows: days }))));
  }
  return series;
}
