/** The one mapping of stops to exit codes, and which stop a run ends with when it meets two. */
import { describe, expect, it } from 'vitest';
import { replacesStop, runExitCode, type StopReason } from '../../src/core/outcome.js';

describe('stops', () => {
  it.each([
    [null, 'locked', true],
    ['budget', 'locked', true],
    ['failing', 'interrupted', true],
    ['fatal', 'interrupted', true],
    // A held file does not hide a refused key: that needs a person.
    ['fatal', 'locked', false],
    // A stop signal is what ended the run, whatever came after.
    ['interrupted', 'locked', false],
    ['interrupted', 'fatal', false],
  ] as [StopReason | null, StopReason, boolean][])('%s then %s: replaced %s', (current, next, replaced) => {
    expect(replacesStop(current, next)).toBe(replaced);
  });

  it('exit codes: 0 done, 1 failed, 75 stopped with work left, 130 interrupted', () => {
    expect([runExitCode(null, false), runExitCode(null, true), runExitCode('fatal', false), runExitCode('locked', true), runExitCode('interrupted', true)]).toEqual([0, 1, 1, 75, 130]);
  });
});
