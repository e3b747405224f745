import { readFileSync } from 'node:fs';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import * as assert from 'uvu/assert';
import { contentId } from '../../src/core/content-id.js';

/**
 * Every ledger a test produces goes through here: its `record` must pass the
 * vendored Agent Trace schema (vendor/agent-trace, strict: no unknown member at
 * any level), and the line must keep the wire members the service requires.
 */
const SCHEMA = JSON.parse(readFileSync(new URL('../../vendor/agent-trace/trace-record.json', import.meta.url), 'utf8'));
const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => Ajv2020;
const ajv = addFormats(new Ajv2020({ allErrors: true, strict: true }));
export const validateRecord = ajv.compile(SCHEMA);

export function assertAgentTraceRecord(record: unknown, label = 'record'): void {
  const ok = validateRecord(record);
  assert.ok(ok, `${label} is not a valid Agent Trace record: ${ajv.errorsText(validateRecord.errors)}`);
}

export function assertValidLedger(ledger: any): void {
  assert.is(ledger.sha, contentId(ledger, 'sha'), 'sha is the content id');
  assert.match(ledger.commit, /^([0-9a-f]{40}|[0-9a-f]{64})$/);
  assert.type(ledger.ts, 'string');
  assert.ok(Array.isArray(ledger.trace_ids), 'trace_ids is a list');
  assertAgentTraceRecord(ledger.record, `the record of ledger ${ledger.sha}`);
  assert.is(ledger.record.vcs.revision, ledger.commit);
}
