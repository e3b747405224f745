/**
 * Reads the workflow files `tracer ci github|gitlab` write, so a test runs the
 * commands a CI runner would run: the steps' `run:` scripts and `env:` (GitHub),
 * the jobs' `script:` items and `variables:` (GitLab), taken from the YAML text
 * itself, not from the constants it was built from.
 *
 * Only the YAML those files use is read (block mappings and sequences, literal
 * `|` blocks, plain, double-quoted and flow-sequence scalars, comments); anything
 * else throws, so a change of shape is noticed rather than misread. A YAML
 * library would read more, but none is a dependency of this package (js-yaml is
 * only eslint's), and the node_modules folder is shared: the subset is enough.
 */
export type YamlValue = string | YamlValue[] | { [key: string]: YamlValue };

interface Line {
  indent: number;
  text: string;
  number: number;
}

export function readWorkflowYaml(source: string): { [key: string]: YamlValue } {
  const raw = source.split('\n');
  const reader = { raw, at: 0 };
  const value = block(reader, 0);
  skipEmpty(reader);
  if (reader.at < raw.length) fail(reader, 'unexpected text');
  if (typeof value !== 'object' || Array.isArray(value)) throw new Error('workflow YAML: the document is not a mapping');
  return value;
}

interface Reader {
  raw: string[];
  at: number;
}

function fail(reader: Reader, why: string): never {
  throw new Error(`workflow YAML line ${reader.at + 1}: ${why}: ${JSON.stringify(reader.raw[reader.at])}`);
}

function skipEmpty(reader: Reader): void {
  while (reader.at < reader.raw.length && /^\s*(#.*)?$/.test(reader.raw[reader.at]!)) reader.at += 1;
}

function peek(reader: Reader): Line | undefined {
  skipEmpty(reader);
  const text = reader.raw[reader.at];
  if (text === undefined) return undefined;
  const indent = text.length - text.trimStart().length;
  return { indent, text: text.trimStart(), number: reader.at };
}

/** A mapping or a sequence whose lines start at `indent` exactly. */
function block(reader: Reader, indent: number): YamlValue {
  const first = peek(reader);
  if (!first || first.indent !== indent) fail(reader, `expected a block at indent ${indent}`);
  return first.text.startsWith('- ') || first.text === '-' ? sequence(reader, indent) : mapping(reader, indent, undefined);
}

const KEY = /^(\S+?):(?: +(.*))?$/;

/** `pending`: the first entry's text when it stood after a sequence's `- `. */
function mapping(reader: Reader, indent: number, pending: string | undefined): { [key: string]: YamlValue } {
  const result: { [key: string]: YamlValue } = {};
  let text = pending;
  for (;;) {
    if (text === undefined) {
      const line = peek(reader);
      if (!line || line.indent < indent) return result;
      if (line.indent > indent) fail(reader, 'unexpected indentation');
      text = line.text;
    }
    const match = KEY.exec(text);
    if (!match) fail(reader, 'expected "key: value"');
    reader.at += 1;
    const key = match[1]!;
    if (key in result) fail(reader, `duplicate key ${key}`);
    result[key] = valueAfter(reader, indent, match[2]);
    text = undefined;
  }
}

function sequence(reader: Reader, indent: number): YamlValue[] {
  const result: YamlValue[] = [];
  for (;;) {
    const line = peek(reader);
    if (!line || line.indent < indent) return result;
    if (line.indent > indent || !(line.text.startsWith('- ') || line.text === '-')) fail(reader, 'expected "- item"');
    const rest = line.text.slice(2).trimStart();
    if (KEY.test(rest) && !/^["'[]/.test(rest)) result.push(mapping(reader, indent + 2, rest));
    else {
      reader.at += 1;
      result.push(valueAfter(reader, indent, rest === '' ? undefined : rest));
    }
  }
}

/** What follows `key:` or `- ` on a line at `indent`: a scalar, a literal block, or a nested block. */
function valueAfter(reader: Reader, indent: number, inline: string | undefined): YamlValue {
  if (inline === '|') return literal(reader, indent);
  if (inline !== undefined) return scalar(reader, inline);
  const next = peek(reader);
  if (!next || next.indent <= indent) return '';
  return block(reader, next.indent);
}

/** A `|` block: the lines indented past its key, less their common indentation, one final newline kept. */
function literal(reader: Reader, indent: number): string {
  const lines: string[] = [];
  let contentIndent: number | undefined;
  while (reader.at < reader.raw.length) {
    const text = reader.raw[reader.at]!;
    const own = text.length - text.trimStart().length;
    if (text.trim() !== '') {
      if (own <= indent) break;
      contentIndent ??= own;
      if (own < contentIndent) fail(reader, 'a literal block line indented less than its first');
    }
    lines.push(text.trim() === '' ? '' : text.slice(contentIndent));
    reader.at += 1;
  }
  while (lines.length > 0 && lines.at(-1) === '') lines.pop();
  return `${lines.join('\n')}\n`;
}

function scalar(reader: Reader, text: string): YamlValue {
  if (text.startsWith('"')) return JSON.parse(text) as string;
  if (text.startsWith("'")) fail(reader, 'single-quoted scalars are not read here');
  if (text.startsWith('[')) {
    if (!text.endsWith(']')) fail(reader, 'a flow sequence on more than one line');
    const inner = text.slice(1, -1).trim();
    return inner === '' ? [] : inner.split(',').map((item) => scalar(reader, item.trim()));
  }
  if (/^[{&*!>%@`]/.test(text) || / #/.test(text)) fail(reader, 'a scalar form not read here');
  return text;
}

/** GitHub Actions: one step of a job, by name, with its `env:` and `run:`. */
export function githubStep(
  workflow: { [key: string]: YamlValue },
  job: string,
  name: string,
): { env: Record<string, string>; run: string } {
  const steps = member(member(member(workflow, 'jobs'), job), 'steps');
  if (!Array.isArray(steps)) throw new Error(`jobs.${job}.steps is not a list`);
  const step = steps.find((candidate) => typeof candidate === 'object' && !Array.isArray(candidate) && candidate.name === name);
  if (!step || typeof step !== 'object' || Array.isArray(step)) throw new Error(`jobs.${job} has no step named ${JSON.stringify(name)}`);
  const run = step.run;
  if (typeof run !== 'string') throw new Error(`step ${JSON.stringify(name)} has no run script`);
  return { env: strings(step.env ?? {}), run };
}

/** GitLab CI: one job's `variables:` and its `script:` items. */
export function gitlabJob(file: { [key: string]: YamlValue }, job: string): { variables: Record<string, string>; script: string[] } {
  const found = member(file, job);
  const script = member(found, 'script');
  if (!Array.isArray(script) || script.some((item) => typeof item !== 'string')) throw new Error(`${job}.script is not a list of commands`);
  return { variables: strings(member(found, 'variables')), script: script as string[] };
}

export function member(value: YamlValue, key: string): YamlValue {
  if (typeof value !== 'object' || Array.isArray(value) || !(key in value)) throw new Error(`no member ${key}`);
  return value[key]!;
}

function strings(value: YamlValue): Record<string, string> {
  if (typeof value !== 'object' || Array.isArray(value)) throw new Error('expected a mapping of strings');
  return Object.fromEntries(
    Object.entries(value).map(([key, item]) => {
      if (typeof item !== 'string') throw new Error(`${key} is not a string`);
      return [key, item];
    }),
  );
}

/**
 * What GitHub does to `${{ … }}` before the shell sees a script or an env
 * value: each expression replaced by its value. Only the names given are known;
 * any other throws, so a workflow never runs with an expression left in.
 */
export function githubExpressions(text: string, values: Record<string, string>): string {
  return text.replace(/\$\{\{\s*([^}]*?)\s*\}\}/g, (_, expression: string) => {
    const value = values[expression];
    if (value === undefined) throw new Error(`no value for the expression \${{ ${expression} }}`);
    return value;
  });
}
