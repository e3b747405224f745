// Recall and false positives per rule over the corpus (test/redact/corpus.ts):
// what corpus.test.ts asserts and bench/workloads/redaction.ts prints.
import { Redactor } from '../../src/redact/engine.js';
import { builtinDetectors } from '../../src/redact/builtin.js';
import { fingerprintWith } from '../../src/redact/placeholder.js';
import type { RedactionProblem } from '../../src/redact/types.js';
import { benign, positives, type Positive } from './corpus.js';

export interface RuleFigures {
  rule: string;
  samples: number;
  /** Samples whose secret is gone from the output, in every encoding it was written in. */
  redacted: number;
  /** ...and named by this rule (another rule may find the same secret first). */
  named: number;
  /** Benign strings this rule found something in. */
  falsePositives: number;
}

export interface CorpusFigures {
  rules: RuleFigures[];
  benign: number;
  /** Benign strings changed at all, by any rule. */
  benignChanged: number;
  missed: Positive[];
  changed: string[];
  problems: RedactionProblem[];
}

export async function builtinRedactor(pii = false): Promise<{ redactor: Redactor; problems: RedactionProblem[] }> {
  const problems: RedactionProblem[] = [];
  const report = (problem: RedactionProblem) => problems.push(problem);
  const detectors = await builtinDetectors({ purpose: 'check', home: '/nonexistent', env: {}, pii, report });
  return { redactor: new Redactor(detectors, { fingerprint: fingerprintWith(Buffer.alloc(32, 7)), report }), problems };
}

/** The secret's forms a text may hold it in: as is, inside one JSON string, inside a JSON string inside another. */
export function encodings(secret: string): string[] {
  const once = JSON.stringify(secret).slice(1, -1);
  const twice = JSON.stringify(once).slice(1, -1);
  return [...new Set([secret, once, twice])];
}

/** Whether any part of the secret long enough to matter survived (its middle half, in any encoding). */
export function survives(output: string, secret: string): boolean {
  const quarter = Math.floor(secret.length / 4);
  const core = secret.length >= 12 ? secret.slice(quarter, secret.length - quarter) : secret;
  return [...encodings(secret), ...encodings(core)].some((form) => output.includes(form));
}

export async function measureCorpus(options: { pii?: boolean; perRule?: number } = {}): Promise<CorpusFigures> {
  const { redactor, problems } = await builtinRedactor(options.pii);
  const byRule = new Map<string, RuleFigures>();
  const figures = (rule: string) => {
    let entry = byRule.get(rule);
    if (!entry) byRule.set(rule, (entry = { rule, samples: 0, redacted: 0, named: 0, falsePositives: 0 }));
    return entry;
  };
  const missed: Positive[] = [];
  for (const sample of positives({ pii: options.pii, perRule: options.perRule })) {
    const entry = figures(sample.rule);
    entry.samples += 1;
    const result = await redactor.redact(sample.text);
    if (survives(result.text, sample.secret)) missed.push(sample);
    else entry.redacted += 1;
    if (result.findings.some((finding) => finding.rule === sample.rule)) entry.named += 1;
  }
  const changed: string[] = [];
  const strings = benign();
  for (const text of strings) {
    const result = await redactor.redact(text);
    if (result.text !== text) changed.push(text);
    for (const rule of new Set(result.findings.map((finding) => finding.rule))) figures(rule).falsePositives += 1;
  }
  await redactor.close();
  return { rules: [...byRule.values()], benign: strings.length, benignChanged: changed.length, missed, changed, problems };
}
