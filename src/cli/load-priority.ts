/**
 * An export's loads yield the CPU to its fetch (Linux). The fetch is the run's critical path:
 * one request at a time, each sent only once the previous page is in the spool. DuckDB loads
 * on libuv's thread pool (where the Node bindings run every statement). On a machine with
 * few cores those loads otherwise take turns with the main thread and with the API's replies,
 * and every request waits a little longer. In the benchmark (2 cores, the sandbox in its own
 * process), lowering their priority took the 90-window export from 3,329 to 3,123 ms over 9
 * alternating runs. The loads still get every core the fetch leaves idle, and once the
 * fetching is over they have the machine to themselves.
 *
 * Each pool thread is found by reading `/proc/thread-self` on it (an asynchronous readlink
 * runs on the pool), and its nice value is raised by 10, to at most 19; the main thread is
 * left as it is. A nice value is only ever raised, which needs no privilege, and it cannot be
 * lowered again: so only a process that docpipe owns does this (the CLI, not a library
 * caller, whose pool does its own work). Elsewhere than Linux nothing changes.
 */
import { readlink } from 'node:fs/promises';
import { getPriority, setPriority } from 'node:os';

/** How much lower the loads run than the process. */
export const LOAD_NICE_STEP = 10;
const MOST_NICE = 19;

let lowered: Promise<number[]> | undefined;

/** Pure: the thread id in a `/proc/thread-self` link (`<pid>/task/<tid>`), if it is one. */
export function threadIdOf(link: string): number | undefined {
  const match = /(?:^|\/)task\/(\d+)$/.exec(link);
  return match ? Number(match[1]) : undefined;
}

/** Pure: the nice value a pool thread gets, from its own. */
export function loweredNice(current: number): number {
  return Math.min(MOST_NICE, current + LOAD_NICE_STEP);
}

/** The threads of libuv's pool, each seen running a readlink of /proc/thread-self. */
async function poolThreads(): Promise<Set<number>> {
  const size = Math.min(1024, Math.max(1, Number(process.env.UV_THREADPOOL_SIZE) || 4));
  const found = new Set<number>();
  // Concurrent calls spread over the idle threads. A thread busy meanwhile (DuckDB starting,
  // say) shows up in a later round: after a few quick rounds they are spaced out, for up to
  // about a second, on a timer that does not keep the process alive.
  for (let round = 0; round < 40 && found.size < size; round++) {
    if (round >= 4) await new Promise((resolve) => setTimeout(resolve, 25).unref());
    const links = await Promise.all(Array.from({ length: size * 2 }, () => readlink('/proc/thread-self').catch(() => '')));
    for (const link of links) {
      const tid = threadIdOf(link);
      if (tid !== undefined && tid !== process.pid) found.add(tid);
    }
  }
  return found;
}

/**
 * Lowers the priority of the pool's threads, once a process; resolves to the thread ids it
 * lowered (none elsewhere than Linux, or if /proc cannot be read). Never rejects.
 */
export function lowerLoadPriority(): Promise<number[]> {
  lowered ??= (async () => {
    if (process.platform !== 'linux') return [];
    const done: number[] = [];
    for (const tid of await poolThreads()) {
      try {
        const current = getPriority(tid);
        const next = loweredNice(current);
        if (next !== current) setPriority(tid, next);
        done.push(tid);
      } catch {
        // The thread is gone, or the system refuses: the loads keep the process's priority.
      }
    }
    return done;
  })().catch(() => []);
  return lowered;
}
