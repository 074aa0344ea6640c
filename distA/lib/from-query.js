/** `promptsFromQuery`: prompts rendered from the rows of a SQL query on the database. */
import { Database, DEFAULT_DB_PATH, DEFAULT_LOCK_TIMEOUT_MS, userSqlError } from '../load/database.js';
import { parseTemplate, renderPromptRows } from '../jobs/prompt-template.js';
/**
 * Runs the query read-only (beside other readers) and renders one prompt per row. A template
 * field with no matching column, bad SQL, or a row that renders empty is a UsageError. The
 * template is checked before the database is opened.
 */
export async function promptsFromQuery(options) {
    const template = parseTemplate(options.template);
    const label = options.label ?? 'query';
    const results = await Database.with(options.db ?? DEFAULT_DB_PATH, {
        readOnly: true,
        lockTimeoutMs: options.lockTimeoutMs ?? DEFAULT_LOCK_TIMEOUT_MS,
        ...(options.onLockWait ? { onLockWait: options.onLockWait } : {}),
    }, async (db) => {
        try {
            return await db.query(options.sql);
        }
        catch (error) {
            throw userSqlError(label, error);
        }
    });
    // Several statements (a SET, then the SELECT): the prompts come from the last result set.
    const { columns, rows } = results.filter((r) => r.isResultSet).at(-1) ?? { columns: [], rows: [] };
    return { columns, prompts: renderPromptRows(template, columns, rows) };
}
//# sourceMappingURL=from-query.js.map