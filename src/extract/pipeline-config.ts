/**
 * The pipeline file of `docpipe sync`: checked as a schema, then normalised, then against
 * the rules, returning every problem at once rather than the first.
 */
import { z } from 'zod';
import { METRICS, type Metric } from '../core/domain.js';
import { GRAINS, parseDay, type Grain } from './windows.js';

export interface PipelineConfig {
  projects: string[];
  metrics: Metric[];
  start: string;
  window: Exclude<Grain, 'range'>;
  lookbackDays: number;
  requestsPerHour: number;
  maxRequestsPerRun: number | undefined;
}

export interface PipelineCheck {
  config: PipelineConfig | undefined;
  warnings: string[];
  errors: string[];
}

const schema = z
  .object({
    projects: z.array(z.string()).min(1),
    metrics: z.array(z.enum(METRICS)).min(1).default(['visitors', 'views']),
    start: z.string(),
    window: z.enum(GRAINS).default('day'),
    lookbackDays: z.number().int().min(0).default(2),
    requestsPerHour: z.number().min(1).default(100),
    maxRequestsPerRun: z.number().int().min(0).optional(),
  })
  .strict();

export function checkPipelineConfig(json: unknown): PipelineCheck {
  const parsed = schema.safeParse(json);
  if (!parsed.success) {
    return {
      config: undefined,
      warnings: [],
      errors: parsed.error.issues.map((i) => `${i.path.join('.') || '(top level)'}: ${i.message}`),
    };
  }
  const raw = parsed.data;
  const errors: string[] = [];
  const warnings: string[] = [];
  const projects = [...new Set(raw.projects.map((p) => p.trim()))];
  if (projects.some((p) => p === '')) errors.push('projects: an empty project id');
  if (projects.length < raw.projects.length) warnings.push('projects: duplicates ignored');
  const metrics = [...new Set(raw.metrics)];
  if (raw.window === 'range') errors.push("window: 'range' has no meaning for an incremental sync; use day, week or month");
  try {
    const start = parseDay(raw.start, 'start');
    if (raw.window === 'week' && start.weekday !== 1) errors.push(`start: ${raw.start} is not a Monday (week windows start on Monday)`);
    if (raw.window === 'month' && start.day !== 1) errors.push(`start: ${raw.start} is not the 1st of a month`);
  } catch (error) {
    errors.push(error instanceof Error ? error.message : String(error));
  }
  if (raw.maxRequestsPerRun !== undefined && raw.maxRequestsPerRun > raw.requestsPerHour) {
    warnings.push(`maxRequestsPerRun ${raw.maxRequestsPerRun} exceeds requestsPerHour ${raw.requestsPerHour}: the hourly budget will stop the run first`);
  }
  if (errors.length > 0) return { config: undefined, warnings, errors };
  return {
    config: {
      projects,
      metrics,
      start: raw.start,
      window: raw.window as PipelineConfig['window'],
      lookbackDays: raw.lookbackDays,
      requestsPerHour: raw.requestsPerHour,
      maxRequestsPerRun: raw.maxRequestsPerRun,
    },
    warnings,
    errors,
  };
}
