// Redaction for the capture hooks, which never boot the kernel: only the plugins
// that may bring detectors are applied, to a kernel of their own, when there is
// text to redact (a transcript snapshot, a summary, a commit's subject). Those
// are the enabled built-ins named `redact…` and every module of the user's and
// the project's plugin lists (an organization's detector is one of those); the
// agents, the families and the transport are never loaded here. Where the
// built-in layers are all there is (the usual case), not even that kernel: its
// hook bus and plugin modules would load for one plugin's detectors, in the git
// hooks too, which otherwise load none of it.
//
// Whatever goes wrong while the detectors are gathered is reported and the rest
// still run: a broken team file or plugin leaves the built-in layers in place.
import { createReadStream, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { listLayer } from '../capture/hook/list-layer.js';
import { BUILTIN_LIST_FILE, builtinPluginPath, effectivePluginList, importPlugin, type PluginEntry } from '../kernel/plugin-list.js';
import { homePaths, PROJECT_STATE_FILES } from '../store/home.js';
import { REDACTED_MEMBER } from './mark.js';
import type { Redactor } from './engine.js';
import { pluginFailed } from './plugin-failure.js';
import { buildRedactor, type BuiltRedactor } from './redactor.js';
import { resumableSnapshot } from './resume.js';
import type { SnapshotRedaction } from '../capture/hook/transcript.js';

/** The package's version: part of a redactor's signature, so a new release's rules redact a transcript afresh. */
const VERSION: string = (JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }).version;
import type { DetectorSource, RedactionProblem } from './types.js';

export interface CaptureTarget {
  home: string;
  /** The project folder the snapshot or summary is written to. */
  projectDir: string;
  /** The repository root (its `.tracer/redact.json`); none for detached captures. */
  root?: string;
  env: NodeJS.ProcessEnv;
}

/** One per project folder and process: a fold may record many events of one project. */
const cache = new Map<string, { built: Promise<BuiltRedactor>; sink: (problem: RedactionProblem) => void }>();

/**
 * The redactor capture uses for this project, built on first need. Problems are
 * reported to `onProblem` of the event being recorded (those met while gathering
 * the detectors, to the first).
 */
export function captureRedactor(target: CaptureTarget, onProblem: (problem: RedactionProblem) => void): Promise<BuiltRedactor> {
  const key = `${target.projectDir}\0${target.root ?? ''}`;
  let cached = cache.get(key);
  if (!cached) {
    const entry = { sink: onProblem } as { built: Promise<BuiltRedactor>; sink: (problem: RedactionProblem) => void };
    entry.built = build(target, (problem) => entry.sink(problem));
    // A build that failed is tried again by the next event.
    entry.built.catch(() => cache.delete(key));
    cache.set(key, entry);
    cached = entry;
  }
  cached.sink = onProblem;
  return cached.built;
}

async function build(target: CaptureTarget, onProblem: (problem: RedactionProblem) => void): Promise<BuiltRedactor> {
  const layers = [
    listLayer(BUILTIN_LIST_FILE, 'builtin'),
    listLayer(homePaths(target.home).plugins, 'user'),
    listLayer(join(target.projectDir, PROJECT_STATE_FILES.config), 'project'),
  ];
  const wanted = [...effectivePluginList(layers).enabled.entries()].filter(([, entry]) => mayBringDetectors(entry));
  const builtinOnly = wanted.length === 1 && wanted[0]![1].spec === BUILTIN_LAYERS_PLUGIN;
  return buildRedactor(builtinOnly ? builtinLayers : await pluginsDetectors(target, wanted, onProblem), {
    purpose: 'capture',
    home: target.home,
    root: target.root,
    projectDir: target.projectDir,
    env: target.env,
    fingerprint: 'home',
    onProblem,
  });
}

/** The built-in plugin whose detectors are the built-in layers (src/plugins/redact.ts). */
const BUILTIN_LAYERS_PLUGIN = 'redact';

/** What the built-in plugin adds, without it: its failure reported as a kernel reports a plugin's. */
const builtinLayers: DetectorSource = async (set, scope) => {
  try {
    const { builtinDetectors } = await import('./builtin.js');
    set.add(...(await builtinDetectors(scope)));
  } catch (error) {
    scope.report(pluginFailed(BUILTIN_LAYERS_PLUGIN, error));
  }
};

/** The detectors of these plugins, applied to a kernel of their own. */
async function pluginsDetectors(
  target: CaptureTarget,
  wanted: ReadonlyArray<[number, PluginEntry]>,
  onProblem: (problem: RedactionProblem) => void,
): Promise<DetectorSource> {
  const [{ Kernel }, { kernelDetectors }] = await Promise.all([import('../kernel/kernel.js'), import('./hooks.js')]);
  const kernel = new Kernel({ home: target.home, cwd: target.root ?? target.projectDir, env: target.env });
  const early: RedactionProblem[] = [];
  for (const [position, entry] of wanted) {
    try {
      await kernel.use(await importPlugin(entry), position);
    } catch (error) {
      const why = (error instanceof Error ? error.message : String(error)).replace(/\.$/, '');
      early.push({ code: 'redact_plugin_failed', message: `${why}; capture goes on with the other plugins' redaction.` });
    }
  }
  for (const problem of early) onProblem(problem);
  return kernelDetectors(kernel);
}

function mayBringDetectors(entry: PluginEntry): boolean {
  const builtin = builtinPluginPath(entry.spec) !== undefined;
  return builtin
    ? entry.spec === BUILTIN_LAYERS_PLUGIN || entry.spec.startsWith(`${BUILTIN_LAYERS_PLUGIN}-`)
    : !entry.spec.startsWith('agents/');
}

/** Opened when the copy starts reading: a missing transcript fails that read, it does not crash the hook. */
async function* unredacted(path: string, _conversationId: string, exported?: AsyncIterable<Buffer>): AsyncGenerator<Buffer> {
  yield* exported ?? (createReadStream(path) as AsyncIterable<Buffer>);
}

/** What capture applies to a record's text (a summary, a commit's subject). */
export interface TextRedaction {
  /** The text redacted. */
  text(text: string): Promise<string>;
  /** Members a redacted record carries (none when no plugin brings a detector: nothing was redacted). */
  mark: Record<string, unknown>;
}

/** What capture applies: to a snapshot's bytes on their way into the cache, and to a summary's text. */
export interface CaptureRedaction extends TextRedaction {
  snapshot: SnapshotRedaction;
}

export async function captureRedaction(target: CaptureTarget, onProblem: (problem: RedactionProblem) => void): Promise<CaptureRedaction> {
  const { redactor } = await captureRedactor(target, onProblem);
  const redaction = textRedaction(redactor);
  const { mark } = redaction;
  // The store's module is the kernel layer's (scripts/build.mjs): a commit link's subject never loads it.
  const { conversationStore } = await import('../engine/conversation-store.js');
  const store = conversationStore(target.projectDir);
  const resumable = resumableSnapshot(target.projectDir, redactor, redactor.signature(VERSION), (sha) => store.blobPath!(sha));
  return { ...redaction, snapshot: isActive(redactor) ? { ...resumable, mark } : { bytes: unredacted, mark } };
}

/**
 * Text alone (a commit link's subject), without what a snapshot needs: the same
 * redactor, so a secret reads as the same placeholder as in the transcripts.
 */
export async function captureTextRedaction(target: CaptureTarget, onProblem: (problem: RedactionProblem) => void): Promise<TextRedaction> {
  return textRedaction((await captureRedactor(target, onProblem)).redactor);
}

function textRedaction(redactor: Redactor): TextRedaction {
  return {
    text: async (text) => (await redactor.redact(text)).text,
    mark: isActive(redactor) ? { [REDACTED_MEMBER]: true } : {},
  };
}

/** No plugin brings a detector (`!redact`): the bytes are kept as they are, and nothing claims they were redacted. */
function isActive(redactor: Redactor): boolean {
  return redactor.detectors.length > 0;
}
