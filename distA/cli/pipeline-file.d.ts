/** Reading a pipeline file (`sync`, `status`): read, parse, check, with every problem at once. */
import type { Logger } from '../core/logger.js';
import type { PipelineConfig } from '../extract/pipeline-config.js';
import { DEFAULT_PIPELINE_FILE } from '../lib/analytics.js';
/** The pipeline `sync` and `status` read when no file is named. */
export { DEFAULT_PIPELINE_FILE };
export declare function readPipelineFile(path: string, logger: Logger): PipelineConfig;
