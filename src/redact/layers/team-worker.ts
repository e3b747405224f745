// The thread team rules run in (team-rules.ts). A team's pattern is anyone's
// regular expression, and one that backtracks catastrophically would hold a
// thread for minutes: here it holds only this one, which the main thread ends
// once the time box is past. Before each rule it says which one it starts, so the
// main thread can name the rule that never finished.
//
// The worker runs this function's source (`new Worker(source, { eval: true })`),
// so it works the same from dist/ and under tsx: it must use nothing from outside
// its own body. `require` is the worker's own, handed in by the source that calls
// this function: a bundler rewrites a `require` written in the body.

interface WorkerRule {
  pattern: string;
  flags: string;
}

type WorkerRequest = { type: 'scan'; id: number; text: string; rules: number[] } | { type: 'samples'; id: number; samples: string[][] };

export function teamWorker(load: (id: string) => unknown): void {
  const { parentPort, workerData } = load('node:worker_threads') as typeof import('node:worker_threads');
  const port = parentPort!;
  const rules = (workerData as { rules: WorkerRule[] }).rules.map(
    (rule) => new RegExp(rule.pattern, `${rule.flags.replace(/[gdy]/g, '')}gd`),
  );
  port.on('message', (request: WorkerRequest) => {
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
}
