// `tracer/plugin/transcript`: what an agent's transcript reader (the module an
// adapter's `transcript()` imports) uses to say what a record holds: the files
// and diff of an edit tool, the text of content blocks. Never loaded by the
// hook. Guide: docs/plugins.md, "An agent".
export type {
  DiffLine,
  ItemDraft,
  ReadState,
  TranscriptCursor,
  TranscriptFormat,
  TranscriptItem,
  TranscriptRole,
  TranscriptSource,
  UsageDraft,
  UsageReader,
  UsageRecord,
  UsageReport,
  UsageTokens,
} from '../core/transcript.js';
export {
  firstString,
  isObject,
  isPatch,
  multiEdit,
  parseMaybeJson,
  patchEdit,
  replaceEdit,
  searchReplaceEdit,
  str,
  textOf,
  writeEdit,
  type ToolEdit,
} from '../transcript/tool-input.js';
export { millisToIso, sqliteRows, jsonLines } from '../transcript/helpers.js';
