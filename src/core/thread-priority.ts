/**
 * Fetching first: an export's critical path is the JavaScript thread (request, parse, spool,
 * next request), while DuckDB loads what is spooled on a helper thread (libuv's pool) and can
 * wait: its queue is bounded and every page is already on disk. On a machine with few cores,
 * a load running beside the fetcher (and beside whatever answers it) slows every request. The
 * CLI therefore lowers the scheduling priority of its helper threads for export and sync:
 * every thread of the process but the main one (libuv's pool, where DuckDB runs, and V8's
 * helpers). The main thread keeps its priority.
 *
 * Measured with `npm run bench` (90 daily windows × 6,000 paths, sandbox on the same 2 cores),
 * median of 6 alternating runs each: export 2.79 s as it was, 2.68 s at nice 10 and 2.65 s at
 * nice 19; in another set, 2.72 s against 2.55 s at nice 19. Nice 10 rather than 19, so that
 * on a machine busy with other work a load still gets about a tenth of a core's share.
 *
 * Linux only (a thread's nice value is its own there; elsewhere it is the process's, and
 * lowering it would slow the fetcher too): elsewhere, and where the system refuses, nothing
 * changes. A niced thread cannot be raised again without privileges, which is why the CLI
 * does this for the process it owns and the library does not.
 */
import { readdirSync } from 'node:fs';
import { getPriority, setPriority } from 'node:os';

/** Nice value for helper threads: lower priority than the main thread's 0. */
export const HELPER_THREAD_NICE = 10;

/** Pure: the threads to lower, from the thread ids of /proc/self/task (all but the main thread). */
export function helperThreads(threadIds: readonly string[], pid: number): number[] {
  return threadIds.map(Number).filter((tid) => Number.isInteger(tid) && tid > 0 && tid !== pid);
}

/**
 * Lowers the priority of this process's helper threads to `nice` (never raises one). Returns
 * how many threads were lowered; 0 where this is not Linux or the system refuses.
 */
export function lowerHelperThreads(nice = HELPER_THREAD_NICE): number {
  if (process.platform !== 'linux') return 0;
  let ids: string[];
  try {
    ids = readdirSync('/proc/self/task');
  } catch {
    return 0;
  }
  let lowered = 0;
  for (const tid of helperThreads(ids, process.pid)) {
    try {
      if (getPriority(tid) >= nice) continue;
      setPriority(tid, nice);
      lowered++;
    } catch {
      // The thread ended meanwhile, or the system refuses: nothing to do.
    }
  }
  return lowered;
}
