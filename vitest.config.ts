import { defineConfig } from 'vitest/config';

/**
 * The reader tests measure how often another process gets into the database while an export
 * or a job batch runs: what they measure is the writer's share of the time, which stretches
 * when other test files load both cores (one full run failed with 45% of reads in, against
 * 90-93% for the same test alone). They run alone, after the rest.
 */
const ALONE = ['test/cli/concurrency.test.ts'];

export default defineConfig({
  test: {
    testTimeout: 30_000,
    hookTimeout: 30_000,
    projects: [
      {
        extends: true,
        test: {
          name: 'parallel',
          include: ['test/**/*.test.ts'],
          exclude: ALONE,
          // DuckDB and the sandbox are real; two cores, so keep parallelism modest.
          maxWorkers: 2,
          sequence: { groupOrder: 0 },
        },
      },
      {
        extends: true,
        test: {
          name: 'alone',
          include: ALONE,
          fileParallelism: false,
          sequence: { groupOrder: 1 },
        },
      },
    ],
  },
});
