/**
 * Fetching first: an export's critical path is the JavaScript thread (request, parse, spool,
 * next request), while DuckDB loads what is spooled on a helper thread (libuv's pool) and can
 * wait: its queue is bounded and every page is already on disk. On a machine with few cores,
 * a load running beside the fetcher (and beside whatever answers it) slows every request. The
 * CLI therefore lowers the scheduling priority of its helper threads for export and sync:
 * every thread of the process but the main one (libuv's pool, where DuckDB runs, and V8's
 * helpers). The main thread keeps its priority. `--helper-priority`:
 *
 * - `idle` (default): nice 10, then Linux's SCHED_IDLE policy (through util-linux's `chrt`,
 *   when it is there). A helper then runs only on a core nothing else wants, and a thread
 *   woken up (the fetcher, a local server) may take that core at once;
 * - `low`: nice 10 only, so that on a machine busy with other work a load still gets about a
 *   tenth of a core's share (a load that waits for a core holds the database file longer);
 * - `normal`: nothing changes.
 *
 * Measured with the benchmark's worker (90 daily windows × 6,000 paths, the sandbox on the
 * same 2 cores), median of 8 alternating runs each: export 2.80 s with `normal`, 2.72 s with
 * `low`, 2.58 s with `idle` (fetch-only 2.12 s).
 *
 * Linux only (a thread's nice value and policy are its own there; elsewhere they are the
 * process's, and lowering them would slow the fetcher too): elsewhere, and where the system
 * refuses, nothing changes. A lowered thread cannot be raised again without privileges,
 * which is why the CLI does this for the process it owns and the library does not.
 */
import { spawn } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { getPriority, setPriority } from 'node:os';

export const HELPER_PRIORITIES = ['idle', 'low', 'normal'] as const;
export type HelperPriority = (typeof HELPER_PRIORITIES)[number];

/** Nice value for helper threads: lower priority than the main thread's 0. */
export const HELPER_THREAD_NICE = 10;

/** Where util-linux installs `chrt` (a fixed path: not whatever PATH finds first). */
const CHRT = ['/usr/bin/chrt', '/bin/chrt'];

/** Pure: the threads to lower, from the thread ids of /proc/self/task (all but the main thread). */
export function helperThreads(threadIds: readonly string[], pid: number): number[] {
  return threadIds.map(Number).filter((tid) => Number.isInteger(tid) && tid > 0 && tid !== pid);
}

/**
 * Lowers the priority of this process's helper threads (never raises one). Resolves to how
 * many threads were lowered in nice value (0 where this is not Linux or the system refuses)
 * once `chrt` (for `idle`) is done; the caller need not wait for it.
 */
export function lowerHelperThreads(priority: HelperPriority = 'idle'): Promise<number> {
  if (priority === 'normal' || process.platform !== 'linux') return Promise.resolve(0);
  let ids: string[];
  try {
    ids = readdirSync('/proc/self/task');
  } catch {
    return Promise.resolve(0);
  }
  const helpers = helperThreads(ids, process.pid);
  let lowered = 0;
  for (const tid of helpers) {
    try {
      if (getPriority(tid) >= HELPER_THREAD_NICE) continue;
      setPriority(tid, HELPER_THREAD_NICE);
      lowered++;
    } catch {
      // The thread ended meanwhile, or the system refuses: nothing to do.
    }
  }
  const chrt = CHRT.find((path) => existsSync(path));
  if (priority === 'low' || chrt === undefined || helpers.length === 0) return Promise.resolve(lowered);
  // One shell for every thread: a single spawn on this thread, the rest in the child.
  return new Promise((resolve) => {
    const child = spawn('/bin/sh', ['-c', 'for t do "$0" -i -p 0 "$t"; done', chrt, ...helpers.map(String)], { stdio: 'ignore' });
    child.on('error', () => resolve(lowered));
    child.on('exit', () => resolve(lowered));
  });
}
