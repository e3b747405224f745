// The agent adapter types live in src/core/agent.ts (the kernel and the capture code share them).
export type {
  AgentAdapter,
  AgentInstall,
  ClosingMessage,
  FilesInstall,
  HookContext,
  HookedEvent,
  OwnedFile,
  SettingsInstall,
} from '../../core/agent.js';
