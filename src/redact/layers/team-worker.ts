// The thread team rules run in (team-rules.ts). A team's pattern is anyone's
// regular expression, and one that backtracks catastrophically would hold a
// thread for minutes: here it holds only this one, which the main thread ends
// once the time box is past. Before each rule it says which one it starts, so the
// main thread can name the rule that never finished.
import { parentPort, workerData } from 'node:worker_threads';

interface Rule {
  pattern: string;
  flags: string;
}

type Request = { type: 'scan'; id: number; text: string; rules: number[] } | { type: 'samples'; id: number; samples: string[][] };

const rules = (workerData as { rules: Rule[] }).rules.map((rule) => new RegExp(rule.pattern, `${rule.flags.replace(/[gdy]/g, '')}gd`));
const port = parentPort!;

port.on('message', (request: Request) => {
  if (request.type === 'scan') {
    const spans: Array<[number, number, number]> = [];
    for (const index of request.rules) {
      port.postMessage({ type: 'rule', id: request.id, rule: index });
      const pattern = rules[index]!;
      pattern.lastIndex = 0;
      for (let match = pattern.exec(request.text); match !== null; match = pattern.exec(request.text)) {
        if (match[0].length === 0) {
          pattern.lastIndex += 1;
          continue;
        }
        // A named group `secret` says which part of the match is the secret.
        const span = match.indices?.groups?.secret ?? match.indices![0]!;
        if (span[1] > span[0]) spans.push([span[0], span[1], index]);
      }
    }
    port.postMessage({ type: 'done', id: request.id, spans });
    return;
  }
  const failures: Array<[number, number]> = [];
  request.samples.forEach((samples, index) => {
    port.postMessage({ type: 'rule', id: request.id, rule: index });
    const pattern = new RegExp(rules[index]!.source, rules[index]!.flags.replace(/[gy]/g, ''));
    samples.forEach((sample, sampleIndex) => {
      if (!pattern.test(sample)) failures.push([index, sampleIndex]);
    });
  });
  port.postMessage({ type: 'done', id: request.id, failures });
});
