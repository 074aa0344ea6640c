/** `promptsFromQuery`: prompts rendered from the rows of a SQL query on the database. */
import { InterruptedError, UsageError } from '../core/errors.js';
import { Database, DEFAULT_DB_PATH, requireDatabaseFile, upgradeIfOlder, userSqlError } from '../load/database.js';
import { checkCallbacks, checkLockTimeoutMs, checkOptionNames, checkProjectId, checkSignal, optionNames } from './common.js';
import { parseTemplate, renderPromptRows } from '../jobs/prompt-template.js';
import type { PromptInput } from './jobs.js';

export interface PromptsFromQueryOptions {
  /** The SQL; its last statement's rows become prompts. */
  sql: string;
  /** Prompt text with `{column}` fields; `{{` and `}}` are literal braces. */
  template: string;
  /** @default 'data/docpipe.duckdb' */
  db?: string;
  /** How long to wait for a writer that holds the file, in ms. @default 300_000 */
  lockTimeoutMs?: number;
  /** Names the SQL in messages (a file name). @default 'query' */
  label?: string;
  /** Names the template in messages. @default 'template' */
  templateLabel?: string;
  /** Told once if the file is held by a writer and the read waits. */
  onLockWait?: (holder: string) => void;
  /**
   * The project the prompts go to: when the rows have a `project_id` column (the shipped
   * queries give every project's), only this project's rows become prompts.
   */
  project?: string;
  /** Aborting it ends a wait for a held file at once (the promise rejects with an InterruptedError). */
  signal?: AbortSignal | undefined;
}

const FROM_QUERY_OPTION_NAMES = optionNames<PromptsFromQueryOptions>()([
  'sql', 'template', 'db', 'lockTimeoutMs', 'label', 'templateLabel', 'onLockWait', 'project', 'signal',
]);

export interface PromptsFromQuery {
  columns: string[];
  /**
   * One per row, in row order, keyed by the `id` column when there is one (for `submitJobs`);
   * `row` is the prompt's row of the query's result (1-based, counting other projects' rows).
   */
  prompts: (PromptInput & { row: number })[];
  /** Rows of other projects left out (`project` given and a `project_id` column). */
  otherProjects: number;
}

/**
 * Runs the query read-only (beside other readers) and renders one prompt per row. A template
 * field with no matching column, bad SQL, or a row that renders empty is a UsageError. The
 * template is checked before the database is opened.
 */
export async function promptsFromQuery(options: PromptsFromQueryOptions): Promise<PromptsFromQuery> {
  checkOptionNames(options, FROM_QUERY_OPTION_NAMES, { entry: 'promptsFromQuery' });
  if (typeof options.sql !== 'string' || options.sql.trim() === '') throw new UsageError(`invalid sql '${String(options.sql as unknown)}': expected the text of a query`);
  checkSignal(options.signal);
  checkCallbacks(options);
  if (typeof options.template !== 'string') throw new UsageError(`invalid template '${String(options.template as unknown)}': expected text with {column} fields`);
  const template = parseTemplate(options.template, options.templateLabel ?? 'template');
  const label = options.label ?? 'query';
  const path = options.db ?? DEFAULT_DB_PATH;
  const project = options.project === undefined ? undefined : checkProjectId('project', options.project);
  const reader = {
    readOnly: true,
    lockTimeoutMs: checkLockTimeoutMs(options.lockTimeoutMs),
    ...(options.onLockWait ? { onLockWait: options.onLockWait } : {}),
    ...(options.signal ? { signal: options.signal } : {}),
  };
  // The shipped queries (sql/prompts) use this release's views and macros: a database of an
  // earlier release gets them first (the schema only; the query itself runs read-only).
  if (path !== ':memory:') {
    requireDatabaseFile(path);
    await upgradeIfOlder(path, reader);
  }
  const results = await Database.with(
    path,
    reader,
    async (db) => {
      try {
        return await db.query(options.sql, options.signal ? { signal: options.signal } : {});
      } catch (error) {
        if (error instanceof InterruptedError) throw error;
        throw userSqlError(label, error);
      }
    },
  );
  // Several statements (a SET, then the SELECT): the prompts come from the last result set.
  const last = results.filter((r) => r.isResultSet).at(-1);
  const columns: string[] = last?.columns ?? [];
  const rows = last?.rows ?? [];
  // A prompt about another project's page would go to this project's agent.
  const numbered = rows.map((row, index) => ({ row, number: index + 1 }));
  const mine = project !== undefined && columns.includes('project_id') ? numbered.filter((r) => String(r.row.project_id) === project) : numbered;
  const prompts = renderPromptRows(template, columns, mine.map((r) => r.row), mine.map((r) => r.number));
  return { columns, prompts, otherProjects: rows.length - mine.length };
}
