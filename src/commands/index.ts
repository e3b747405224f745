// Commands that belong to no plugin. A plugin's own commands arrive through its
// `commands` array (see kernel.ts), so this list never names a family.
import type { CommandClass } from 'clipanion';
import type { TracerContext } from '../cli/context.js';
import { BlameCommand } from './blame.js';
import { ConfigGetCommand } from './config/get.js';
import { ConfigListCommand } from './config/list.js';
import { ConfigSetCommand } from './config/set.js';
import { ConfigUnsetCommand } from './config/unset.js';
import { CommitLinkCommand } from './commit-link.js';
import { ContextCommand } from './context.js';
import { DoctorCommand } from './doctor.js';
import { HookCommand } from './hook.js';
import { InitCommand } from './init.js';
import { PluginsCommand } from './plugins.js';
import { ProjectCreateCommand } from './project/create.js';
import { PullCommand } from './pull.js';
import { PushCommand } from './push.js';
import { CiGithubCommand } from './ci/github.js';
import { CiGitlabCommand } from './ci/gitlab.js';
import { ReconcileCommand } from './reconcile.js';
import { RemoteAddCommand } from './remote/add.js';
import { RemoteListCommand } from './remote/list.js';
import { RemoteRemoveCommand } from './remote/remove.js';
import { RemoteRenameCommand } from './remote/rename.js';
import { RemoteSetTokenCommand } from './remote/set-token.js';
import { RemoteSetUrlCommand } from './remote/set-url.js';
import { RemoteShowCommand } from './remote/show.js';
import { ResetCommand } from './reset.js';
import { RewriteLedgerCommand } from './rewrite-ledger.js';
import { RuleAddCommand } from './rule/add.js';
import { RuleListCommand } from './rule/list.js';
import { RuleRemoveCommand } from './rule/remove.js';
import { ServeCommand } from './serve.js';
import { ShowCommand } from './show.js';
import { SetGlobalCommand } from './set/global.js';
import { SetGlobalUserCommand } from './set/globaluser.js';
import { StatsCommand } from './stats.js';
import { StatusCommand } from './status.js';
import { SyncCommand } from './sync.js';
import { TokenCreateCommand } from './token/create.js';
import { ViewCommand } from './view.js';

export const CORE_COMMANDS: CommandClass<TracerContext>[] = [
  InitCommand,
  ResetCommand,
  ConfigGetCommand,
  ConfigSetCommand,
  ConfigUnsetCommand,
  ConfigListCommand,
  SetGlobalCommand,
  SetGlobalUserCommand,
  RemoteAddCommand,
  RemoteSetUrlCommand,
  RemoteSetTokenCommand,
  RemoteRenameCommand,
  RemoteRemoveCommand,
  RemoteShowCommand,
  RemoteListCommand,
  PluginsCommand,
  ServeCommand,
  ProjectCreateCommand,
  TokenCreateCommand,
  PushCommand,
  PullCommand,
  SyncCommand,
  StatusCommand,
  DoctorCommand,
  HookCommand,
  ContextCommand,
  ViewCommand,
  CommitLinkCommand,
  RewriteLedgerCommand,
  BlameCommand,
  ShowCommand,
  StatsCommand,
  ReconcileCommand,
  CiGithubCommand,
  CiGitlabCommand,
  RuleAddCommand,
  RuleListCommand,
  RuleRemoveCommand,
];
