// What the build compiles in for @secretlint/core's messages/filter-duplicated-process.js
// (scripts/build.mjs, `linearDedupe`): the same filter, in linear time.
//
// The published filter compares each message with every later one, copying the
// rest of the list for each: quadratic in the findings of one lintSource call.
// A text full of secrets made that the whole cost (4,000 GitHub tokens on a line:
// 0.9 s, 8,000 URLs with passwords: 4.5 s), and a 10 MiB blob of tokens sent to
// `tracer serve` would have held its gate for hours.
//
// Same result: a message is dropped when a later one has the same range,
// severity and message (a message without a severity equals none), and the
// order is kept. test/redact/secretlint-dedupe.test.ts compares the two.
export function filterDuplicatedMessages(messages = []) {
  const later = new Set();
  const kept = [];
  for (let index = messages.length - 1; index >= 0; index -= 1) {
    const message = messages[index];
    if ('severity' in message) {
      const key = JSON.stringify([message.range[0], message.range[1], message.severity, message.message]);
      if (later.has(key)) continue;
      later.add(key);
    }
    kept.push(message);
  }
  return kept.reverse();
}
