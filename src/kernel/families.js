// An artifact family as data: everything the engine and the service rely on to
// store, identify and move its records. Family plugins register these; the kernel
// keeps them in registration order (plugins.json order) and never names one.
import { ExitCode, TracerError } from '../core/errors.js';
/** Checks a definition against the families already registered; the error names both plugins when two collide. */
export function registeredFamily(definition, plugin, known) {
  const invalid = (why) =>
    new TracerError(
      'invalid_family',
      `Plugin "${plugin}" registers an invalid family: ${why}; fix the plugin or switch it off in plugins.json.`,
      {
        exitCode: ExitCode.localState,
        plugin,
      },
    );
  const name = definition.name;
  if (!/^[a-z][a-z0-9-]{0,63}$/.test(name)) throw invalid(`the name "${name}" must be lowercase letters, digits and "-"`);
  const manifestKey = definition.manifestKey ?? `${name.replace(/-/g, '_')}_ids`;
  if (!/^[a-z][a-z0-9_]*$/.test(manifestKey))
    throw invalid(`family "${name}" has the manifest key "${manifestKey}", which is not snake_case`);
  if (definition.idMember === null && !definition.identity?.length) throw invalid(`family "${name}" needs an idMember or identity members`);
  for (const member of [...(definition.idMember === null ? definition.identity : [definition.idMember]), 'ts']) {
    if (!definition.required.includes(member)) throw invalid(`family "${name}" must list "${member}" among its required members`);
  }
  // `file` is appended to as well as listed: it must stay inside the project folder just like `storage`.
  for (const path of definition.file === undefined ? definition.storage : [...definition.storage, definition.file]) {
    if (path === '' || path.startsWith('/') || path.startsWith('\\') || path.split(/[\\/]/).includes('..'))
      throw invalid(`family "${name}" has the storage path "${path}", which leaves the project folder`);
  }
  const clash = known.find((family) => family.name === name || family.manifestKey === manifestKey);
  if (clash) {
    const what =
      clash.name === name ? `the family "${name}"` : `the manifest key "${manifestKey}" (families "${clash.name}" and "${name}")`;
    throw new TracerError(
      'duplicate_family',
      `Plugins "${clash.plugin}" and "${plugin}" both register ${what}; switch one of them off in plugins.json (see tracer plugins).`,
      { exitCode: ExitCode.localState, plugin },
    );
  }
  return Object.freeze({ ...definition, manifestKey, plugin });
}
