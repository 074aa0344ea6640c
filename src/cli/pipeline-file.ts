/** Reading a pipeline file (`sync`, `status`): read, parse, check, with every problem at once. */
import { readFileSync } from 'node:fs';
import { UsageError } from '../core/errors.js';
import type { Logger } from '../core/logger.js';
import { checkPipelineConfig, type PipelineConfig } from '../extract/pipeline-config.js';

/** The pipeline `sync` and `status` read when no file is named. */
export const DEFAULT_PIPELINE_FILE = 'pipelines/nightly.json';

export function readPipelineFile(path: string, logger: Logger): PipelineConfig {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new UsageError(`cannot read pipeline file '${path}'`, { cause: error });
  }
  let json: unknown;
  try {
    // Editors on Windows may start the file with a byte-order mark.
    json = JSON.parse(text.replace(/^\uFEFF/, ''));
  } catch (error) {
    throw new UsageError(`pipeline file '${path}' is not valid JSON`, { cause: error });
  }
  const check = checkPipelineConfig(json);
  for (const warning of check.warnings) logger.warn('pipeline', { file: path, warning });
  if (!check.config) throw new UsageError(`pipeline file '${path}': ${check.errors.join('; ')}`);
  return check.config;
}
