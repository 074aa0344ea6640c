import { describe, expect, it } from 'vitest';
import { decideWindow, isSettled, orderAllFetches, planExport } from '../../src/extract/plan-export.js';
import { planClosedWindows, type Grain } from '../../src/extract/windows.js';
import { windowKey, type Metric } from '../../src/core/domain.js';
import { checkPipelineConfig } from '../../src/extract/pipeline-config.js';

describe('planExport', () => {
  const w = { start: '2026-11-10', end: '2026-11-11' };
  const now = Date.parse('2026-11-22T03:00:00Z');
  it('fetches new windows and skips settled ones', () => {
    const loaded = new Map([[windowKey(w), { ...w, fetchedAt: Date.parse('2026-11-13T00:00:00Z') }]]);
    const other = { start: '2026-11-11', end: '2026-11-12' };
    expect(planExport({ windows: [w, other], loaded, now })).toEqual([
      { window: w, action: 'skip', reason: 'settled' },
      { window: other, action: 'fetch', reason: 'new' },
    ]);
  });
  it('re-fetches an unsettled window once per UTC day', () => {
    const fetched = (iso: string) => new Map([[windowKey(w), { ...w, fetchedAt: Date.parse(iso) }]]);
    expect(decideWindow({ loaded: fetched('2026-11-12T23:00:00Z'), now }, w)).toMatchObject({ action: 'fetch', reason: 'unsettled' });
    expect(decideWindow({ loaded: fetched('2026-11-12T23:00:00Z'), now: Date.parse('2026-11-12T23:30:00Z') }, w)).toMatchObject({ action: 'skip', reason: 'fetched-today' });
    expect(decideWindow({ loaded: fetched('2026-11-13T00:00:00Z'), now, refresh: true }, w)).toMatchObject({ action: 'fetch', reason: 'refresh' });
  });
  it('fetches a window not over yet again on the same day: its copy from before its end is partial', () => {
    const week = { start: '2026-12-07', end: '2026-12-14' };
    const copy = new Map([[windowKey(week), { ...week, fetchedAt: Date.parse('2026-12-09T08:00:00Z') }]]);
    expect(decideWindow({ loaded: copy, now: Date.parse('2026-12-09T20:00:00Z') }, week)).toMatchObject({ action: 'fetch', reason: 'unsettled' });
    // Once it is over, its late data is fetched at most once a UTC day, as any unsettled window's.
    const after = new Map([[windowKey(week), { ...week, fetchedAt: Date.parse('2026-12-14T01:00:00Z') }]]);
    expect(decideWindow({ loaded: after, now: Date.parse('2026-12-14T20:00:00Z') }, week)).toMatchObject({ action: 'skip', reason: 'fetched-today' });
  });
  it('settles exactly lookbackDays after the window ends', () => {
    expect(isSettled(w, Date.parse('2026-11-12T23:59:59Z'), 2)).toBe(false);
    expect(isSettled(w, Date.parse('2026-11-13T00:00:00Z'), 2)).toBe(true);
    expect(isSettled(w, Date.parse('2026-11-11T00:00:00Z'), 0)).toBe(true);
  });
});

describe('planClosedWindows', () => {
  const now = Date.parse('2026-11-22T10:00:00Z'); // a Sunday
  it('ends days at today (exclusive), so today is never loaded', () => {
    const windows = planClosedWindows('2026-11-19', 'day', now);
    expect(windows.map((x) => x.start)).toEqual(['2026-11-19', '2026-11-20', '2026-11-21']);
    expect(windows.at(-1)?.end).toBe('2026-11-22');
  });
  it('ends weeks and months at the last boundary', () => {
    expect(planClosedWindows('2026-11-02', 'week', now).at(-1)).toEqual({ start: '2026-11-09', end: '2026-11-16' });
    expect(planClosedWindows('2026-09-01', 'month', now).at(-1)).toEqual({ start: '2026-10-01', end: '2026-11-01' });
    expect(planClosedWindows('2026-11-22', 'day', now)).toEqual([]);
  });
  it('plans a pipeline that has run for more than ten years (the guard is for a typed range)', () => {
    const later = Date.parse('2036-11-10T06:00:00Z');
    const days = planClosedWindows('2026-11-01', 'day', later);
    expect(days).toHaveLength(3662);
    expect(days.at(-1)).toEqual({ start: '2036-11-09', end: '2036-11-10' });
  });
});

describe('checkPipelineConfig', () => {
  it('normalises a good file and applies defaults', () => {
    const check = checkPipelineConfig({ projects: ['a', 'a'], start: '2026-01-01' });
    expect(check.errors).toEqual([]);
    expect(check.config).toMatchObject({ projects: ['a'], metrics: ['visitors', 'views'], grains: ['day'], lookbackDays: 2, requestsPerHour: 100 });
    expect(check.warnings).toEqual(['projects: duplicates ignored']);
  });
  it('reports every problem at once', () => {
    const check = checkPipelineConfig({ projects: ['a'], start: '2026-01-07', window: 'week', metrics: ['visitors'] });
    expect(check.config).toBeUndefined();
    expect(check.errors).toEqual(['start: 2026-01-07 is not a Monday (week windows start on Monday)']);
    const bad = checkPipelineConfig({ projects: [], start: 'x', extra: 1 });
    expect(bad.errors.length).toBeGreaterThanOrEqual(2);
    // A mistyped year would plan hundreds of thousands of windows.
    expect(checkPipelineConfig({ projects: ['a'], start: '0026-01-01' }).errors).toEqual(['start: 0026-01-01 is before 2000: check the year']);
  });
  it('names the bad value as the file has it', () => {
    const check = checkPipelineConfig({ projects: ['a'], start: '2026-01-01', metrics: ['visitors', 'visitor'], lookbackDays: -1 });
    expect(check.errors).toEqual([
      expect.stringMatching(/^metrics\.1: .* \(got "visitor"\)$/),
      expect.stringMatching(/^lookbackDays: .* \(got -1\)$/),
    ]);
  });
});

describe('orderAllFetches', () => {
  const item = (metric: Metric, grain: Grain, start: string, end: string) => ({ metric, grain, window: { start, end } });
  it('puts visitors and views first, then the other endpoints, each coarse grains in turn and newest first', () => {
    const items = [
      item('feedback', 'day', '2026-03-01', '2026-03-02'),
      item('searches', 'week', '2026-02-23', '2026-03-02'),
      item('feedback', 'day', '2026-03-02', '2026-03-03'),
      item('visitors', 'day', '2026-03-01', '2026-03-02'),
      item('views', 'day', '2026-03-02', '2026-03-03'),
    ];
    expect(orderAllFetches(items).map((i) => `${i.metric} ${i.window.start}`)).toEqual([
      'views 2026-03-02',
      'visitors 2026-03-01',
      'searches 2026-02-23',
      'feedback 2026-03-02',
      'feedback 2026-03-01',
    ]);
  });
});
