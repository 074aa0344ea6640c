/**
 * `--out` of the commands that write files (`report`, `dump`), and `--results` of the job
 * batches: checked before any work, so that a path that cannot be written is a usage error
 * (exit 2) naming it, not a raw EISDIR or ENOTDIR after the database was read (or after an
 * hour of jobs).
 */
import { closeSync, existsSync, openSync, readSync, readlinkSync, realpathSync, statSync } from 'node:fs';
import { dirname, resolve, sep } from 'node:path';
import { UsageError } from '../core/errors.js';
import { canWrite, isSymbolicLink } from '../core/files.js';

/**
 * Throws UsageError unless `value` names a file (`'file'`) or folder (`'folder'`) that can be
 * made or written. Returns the path to write: a symbolic link's target (the file is replaced
 * by a new one written beside it, which would otherwise replace the link itself).
 */
export function checkOutPath(value: string, kind: 'file' | 'folder', option = '--out'): string {
  const bad = (why: string): UsageError => new UsageError(`invalid ${option} '${value}': ${why}; expected a ${kind === 'file' ? 'file name' : 'folder'}`);
  if (!value.trim()) throw bad('empty');
  // `reports/` names a folder (path.resolve would drop the slash and make a file of it).
  if (kind === 'file' && /[\\/]$/.test(value)) throw bad('it names a folder');
  let given = resolve(value);
  // A symbolic link whose target is not there yet: the target is made, the link kept.
  for (let hops = 0; !existsSync(given) && isSymbolicLink(given); hops++) {
    if (hops === 40) throw bad('its symbolic links go round in a loop');
    // A relative target is the link's folder's, as the kernel reads it (that folder may be reached through a link).
    given = resolve(realpathSync(dirname(given)), readlinkSync(given));
  }
  if (existsSync(given)) {
    const path = realpathSync(given);
    const stat = statSync(path);
    if (kind === 'file' && stat.isDirectory()) throw bad('it is a folder');
    if (kind === 'folder' && !stat.isDirectory()) throw bad('it is a file');
    // A pipe or a device would be replaced by the file, not written to.
    if (kind === 'file' && !stat.isFile()) throw bad('it is not a regular file');
    const folder = kind === 'file' ? dirname(path) : path;
    if (!canWrite(folder) || (kind === 'file' && !canWrite(path))) throw bad(`${kind === 'file' ? path : folder} cannot be written here`);
    return path;
  }
  // The nearest part of the path that exists must be a folder to make the rest in; a part that
  // is a symbolic link to nothing (or a loop of them) cannot be made.
  let above = dirname(given);
  while (!existsSync(above) && dirname(above) !== above) {
    if (isSymbolicLink(above)) throw bad(`${above} is a symbolic link that leads nowhere`);
    above = dirname(above);
  }
  if (!statSync(above).isDirectory()) throw bad(`${above} is a file`);
  if (!canWrite(above)) throw bad(`${above} cannot be written here`);
  return given;
}

/**
 * Throws UsageError if a page written to `out` (a path checkOutPath returned) would replace the
 * database `db`, its write-ahead log, or a file of its spool, or an existing file that is not an
 * HTML page: `report --out data/docpipe.duckdb` replaced the database with the page, and
 * `--out prompts.txt` the prompt file, without a word.
 */
export function checkPageOut(out: string, value: string, db: string): void {
  const bad = (why: string): UsageError => new UsageError(`invalid --out '${value}': ${why}; not replaced`);
  if (db !== ':memory:') {
    const real = (path: string): string => (existsSync(path) ? realpathSync(path) : resolve(path));
    const database = real(db);
    if (out === database || out === `${database}.wal`) throw bad(`it is the database (--db ${db})`);
    const spool = real(`${db}.spool`);
    if (out.startsWith(`${spool}${sep}`)) throw bad(`it is in the database's spool (${spool})`);
  }
  if (existsSync(out) && !isHtmlPage(out)) throw bad('it is an existing file that is not an HTML page');
}

/**
 * Whether a file may be taken for a page: named `.html` or `.htm`, blank, or beginning (after
 * any BOM, blank space, comments and an XML declaration) with a doctype or an html, head or
 * body tag. A database, a prompt file or a CSV is none of these.
 */
function isHtmlPage(path: string): boolean {
  if (/\.html?$/i.test(path)) return true;
  const head = Buffer.alloc(4096);
  const fd = openSync(path, 'r');
  let read: number;
  try {
    read = readSync(fd, head, 0, head.length, 0);
  } finally {
    closeSync(fd);
  }
  const text = head.subarray(0, read).toString('utf8').replace(/^\uFEFF/, '').toLowerCase();
  const start = text.replace(/^(\s+|<!--[\s\S]*?-->|<\?xml[\s\S]*?\?>)*/, '');
  return start === '' || /^<(!doctype html|html|head|body)[\s>]/.test(start);
}

const CANNOT_WRITE = new Set(['EACCES', 'EPERM', 'EROFS', 'ENOSPC', 'EDQUOT']);

/**
 * Runs the writing of `--out` (`value`, as given): a file system that refuses it (a read-only
 * mount, a folder only root may write, a full disk) is a usage error naming the path given,
 * not a raw error naming a temporary file.
 */
export async function writingOut<T>(value: string, write: () => T | Promise<T>, option = '--out'): Promise<T> {
  try {
    return await write();
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    if (typeof code === 'string' && CANNOT_WRITE.has(code)) {
      throw new UsageError(`cannot write ${option} '${value}': ${code === 'ENOSPC' || code === 'EDQUOT' ? 'no space left' : 'not allowed here'} (${code})`, { cause: error });
    }
    // A folder to make in one that exists but takes no new folder (/proc, /sys), or a file to
    // make in one that takes no new file (the temporary file beside it is not the one to name).
    const syscall = (error as { syscall?: unknown }).syscall;
    if (code === 'ENOENT' && syscall === 'mkdir') {
      throw new UsageError(`cannot write ${option} '${value}': its folder cannot be made there (${code})`, { cause: error });
    }
    // Only a file at the path given (or under it, or its temporary file beside it): another
    // file's ENOENT (the database's, say) is its own error.
    const at = (error as { path?: unknown }).path;
    if (code === 'ENOENT' && syscall === 'open' && typeof at === 'string' && resolve(at).startsWith(resolve(value))) {
      throw new UsageError(`cannot write ${option} '${value}': a file cannot be made there (${code})`, { cause: error });
    }
    throw error;
  }
}
