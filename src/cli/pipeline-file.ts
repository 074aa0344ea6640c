/** Reading a pipeline file (`sync`, `status`): read, parse, check, with every problem at once. */
import type { Logger } from '../core/logger.js';
import type { BudgetOverrides, PipelineConfig } from '../extract/pipeline-config.js';
import { DEFAULT_PIPELINE_FILE, readPipeline } from '../lib/analytics.js';

/** The pipeline `sync` and `status` read when no file is named. */
export { DEFAULT_PIPELINE_FILE };

export function readPipelineFile(path: string, logger: Logger, overrides: BudgetOverrides = {}): PipelineConfig {
  return readPipeline(path, (warning) => logger.warn('pipeline', { file: path, warning }), overrides);
}
