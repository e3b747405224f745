import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, totalmem } from 'node:os';
import { dirname } from 'node:path';

/** One line of the results table: tracer against its bar, with the baseline measured in the same run. */
export interface Result {
  workload: string;
  size: string;
  tracerMs?: number;
  baselineMs?: number;
  baselineLabel?: string;
  ratio?: number;
  peakRssMb?: number;
  bar: string;
  pass: boolean;
  /** Anything else worth keeping (rows/s, counts). */
  notes?: string;
  /** Every measurement behind the medians (ms, or KiB for peak RSS), kept in the results file. */
  samples?: Record<string, number[]>;
}

export interface RunInfo {
  mode: 'quick' | 'full';
  startedAt: string;
  node: string;
  cpus: string;
  cores: number;
  memoryGb: number;
  loadBefore: number[];
  loadAfter?: number[];
}

export function runInfo(mode: RunInfo['mode']): RunInfo {
  const cpu = cpus();
  return {
    mode,
    startedAt: new Date().toISOString(),
    node: process.version,
    cpus: cpu[0]?.model ?? 'unknown',
    cores: cpu.length,
    memoryGb: Math.round(totalmem() / 2 ** 30),
    loadBefore: loadavg().map((value) => Number(value.toFixed(2))),
  };
}

/** The table as BENCHMARKS.md shows it. */
export function markdownTable(results: readonly Result[]): string {
  const rows = [
    '| Workload | Size | tracer | Baseline | Ratio | Peak RSS | Bar | Met |',
    '|---|---|---:|---:|---:|---:|---|---|',
    ...results
      .map((result) =>
        [
          result.workload,
          result.size,
          result.tracerMs === undefined ? '' : `${formatMs(result.tracerMs)}`,
          result.baselineMs === undefined
            ? ''
            : `${formatMs(result.baselineMs)}${result.baselineLabel && result.baselineLabel !== 'raw script' ? ` (${result.baselineLabel})` : ''}`,
          result.ratio === undefined ? '' : `${result.ratio.toFixed(2)}×`,
          result.peakRssMb === undefined ? '' : `${result.peakRssMb} MiB`,
          result.bar + (result.notes ? `; ${result.notes}` : ''),
          result.pass ? 'yes' : '**no**',
        ].join(' | '),
      )
      .map((line) => `| ${line} |`),
  ];
  return rows.join('\n');
}

function formatMs(ms: number): string {
  return ms >= 1000 ? `${(ms / 1000).toFixed(2)} s` : `${Math.round(ms)} ms`;
}

export function saveResults(path: string, info: RunInfo, results: readonly Result[]): void {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, `${JSON.stringify({ ...info, loadAfter: loadavg().map((value) => Number(value.toFixed(2))), results }, null, 2)}\n`);
}
