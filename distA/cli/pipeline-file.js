import { DEFAULT_PIPELINE_FILE, readPipeline } from '../lib/analytics.js';
/** The pipeline `sync` and `status` read when no file is named. */
export { DEFAULT_PIPELINE_FILE };
export function readPipelineFile(path, logger) {
    return readPipeline(path, (warning) => logger.warn('pipeline', { file: path, warning }));
}
//# sourceMappingURL=pipeline-file.js.map