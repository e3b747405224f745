// Commands that belong to no plugin, by the first word of their command line. A
// command line loads only its own word's modules: importing every command and
// what each imports costs a command about 100 ms of a 2-core machine's start-up
// (BENCHMARKS.md, "Commands by first word"). Help, and a word no command has,
// load them all. A plugin's own commands arrive through its `commands` array
// (see kernel.ts), so this table never names a family.
import type { CommandClass } from 'clipanion';
import type { TracerContext } from '../cli/context.js';

type Commands = CommandClass<TracerContext>[];

export const COMMANDS_BY_WORD: Readonly<Record<string, () => Promise<Commands>>> = {
  init: async () => [(await import('./init.js')).InitCommand],
  reset: async () => [(await import('./reset.js')).ResetCommand],
  config: async () => {
    const [get, set, unset, list] = await Promise.all([
      import('./config/get.js'),
      import('./config/set.js'),
      import('./config/unset.js'),
      import('./config/list.js'),
    ]);
    return [get.ConfigGetCommand, set.ConfigSetCommand, unset.ConfigUnsetCommand, list.ConfigListCommand];
  },
  set: async () => {
    const [global, globalUser] = await Promise.all([import('./set/global.js'), import('./set/globaluser.js')]);
    return [global.SetGlobalCommand, globalUser.SetGlobalUserCommand];
  },
  remote: async () => {
    const [add, setUrl, setToken, rename, remove, show, list] = await Promise.all([
      import('./remote/add.js'),
      import('./remote/set-url.js'),
      import('./remote/set-token.js'),
      import('./remote/rename.js'),
      import('./remote/remove.js'),
      import('./remote/show.js'),
      import('./remote/list.js'),
    ]);
    return [
      add.RemoteAddCommand,
      setUrl.RemoteSetUrlCommand,
      setToken.RemoteSetTokenCommand,
      rename.RemoteRenameCommand,
      remove.RemoteRemoveCommand,
      show.RemoteShowCommand,
      list.RemoteListCommand,
    ];
  },
  plugins: async () => [(await import('./plugins.js')).PluginsCommand],
  serve: async () => [(await import('./serve.js')).ServeCommand],
  project: async () => [(await import('./project/create.js')).ProjectCreateCommand],
  token: async () => {
    const [create, revoke] = await Promise.all([import('./token/create.js'), import('./token/revoke.js')]);
    return [create.TokenCreateCommand, revoke.TokenRevokeCommand];
  },
  push: async () => [(await import('./push.js')).PushCommand],
  pull: async () => [(await import('./pull.js')).PullCommand],
  sync: async () => [(await import('./sync.js')).SyncCommand],
  status: async () => [(await import('./status.js')).StatusCommand],
  doctor: async () => [(await import('./doctor.js')).DoctorCommand],
  hook: async () => [(await import('./hook.js')).HookCommand],
  context: async () => [(await import('./context.js')).ContextCommand],
  view: async () => [(await import('./view.js')).ViewCommand],
  'commit-link': async () => [(await import('./commit-link.js')).CommitLinkCommand],
  'rewrite-ledger': async () => [(await import('./rewrite-ledger.js')).RewriteLedgerCommand],
  blame: async () => [(await import('./blame.js')).BlameCommand],
  show: async () => [(await import('./show.js')).ShowCommand],
  stats: async () => [(await import('./stats.js')).StatsCommand],
  reconcile: async () => [(await import('./reconcile.js')).ReconcileCommand],
  forget: async () => [(await import('./forget.js')).ForgetCommand],
  audit: async () => {
    const [list, verify] = await Promise.all([import('./audit/list.js'), import('./audit/verify.js')]);
    return [list.AuditListCommand, verify.AuditVerifyCommand];
  },
  ci: async () => {
    const [github, gitlab] = await Promise.all([import('./ci/github.js'), import('./ci/gitlab.js')]);
    return [github.CiGithubCommand, gitlab.CiGitlabCommand];
  },
  rule: async () => {
    const [add, list, remove] = await Promise.all([import('./rule/add.js'), import('./rule/list.js'), import('./rule/remove.js')]);
    return [add.RuleAddCommand, list.RuleListCommand, remove.RuleRemoveCommand];
  },
};

/** The core command classes to register for this command line: its first word's, or all of them. */
export async function coreCommandsFor(argv: readonly string[]): Promise<Commands> {
  const word = argv[0] ?? '';
  if (Object.hasOwn(COMMANDS_BY_WORD, word)) return COMMANDS_BY_WORD[word]!();
  return (await Promise.all(Object.values(COMMANDS_BY_WORD).map((load) => load()))).flat();
}
