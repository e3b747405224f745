// JSON may carry lone UTF-16 surrogates (`"\ud800"`) that no canonical JSON,
// hence no content id, can represent. Agent payloads and transcripts are not
// ours to refuse: a lone surrogate becomes U+FFFD, as a UTF-8 decoder would
// make of it, and the event is still recorded.

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

export function parseWellFormedJson(text: string): unknown {
  return JSON.parse(text, (_key, value: unknown) => (typeof value === 'string' ? value.replace(LONE_SURROGATE, '\uFFFD') : value));
}
