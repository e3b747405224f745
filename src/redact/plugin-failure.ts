import type { RedactionProblem } from './types.js';

/** A plugin's detectors could not be had; the others' still redact. */
export function pluginFailed(plugin: string, error: unknown): RedactionProblem {
  const why = (error instanceof Error ? error.message : String(error)).replace(/\.$/, '');
  return {
    code: 'redact_plugin_failed',
    message: `Plugin "${plugin}" failed to add its redaction detectors (${why}); redaction goes on with the other plugins' detectors, and tracer plugins shows how to fix or switch that one off.`,
  };
}
