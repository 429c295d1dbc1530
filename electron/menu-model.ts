// The Folio menu (application menu and tray) as plain data, built from the app's state, so what it
// offers in each state is tested without Electron; main.ts only maps it onto Electron's Menu.
import type { RunningServer } from './embedded-server.js';

export type MenuAction =
  | 'open-admin'
  | 'copy-api-url'
  | 'copy-url'
  | 'toggle-lan'
  | 'open-data-folder'
  | 'show-admin-password'
  | 'backup-now'
  | 'restore-backup'
  | 'open-settings'
  | 'quit';

export type MenuItemModel =
  | { kind: 'action'; label: string; action: MenuAction; enabled: boolean; /** e.g. the URL to copy */ arg?: string; accelerator?: string }
  | { kind: 'checkbox'; label: string; action: MenuAction; enabled: boolean; checked: boolean }
  | { kind: 'note'; label: string }
  | { kind: 'separator' };

export interface MenuState {
  server: RunningServer | null;
  /** A start or restart is under way. */
  busy: boolean;
  /** Why the server is not running, when it failed to start. */
  error: string | null;
  /** A generated first-start admin password is on disk. */
  hasInitialPassword: boolean;
  /** A backup or a restore started from this menu is under way. */
  task?: 'backup' | 'restore' | null;
}

export function buildMenuModel(state: MenuState): MenuItemModel[] {
  const { server, busy } = state;
  const up = Boolean(server) && !busy;
  const items: MenuItemModel[] = [];
  const task = state.task ?? null;
  if (task === 'restore') items.push({ kind: 'note', label: 'Server: stopped while restoring a backup…' });
  else if (busy) items.push({ kind: 'note', label: 'Server: starting…' });
  else if (server) {
    const moved = server.port !== server.preferredPort ? ` (port ${server.preferredPort} was taken)` : '';
    items.push({ kind: 'note', label: `Server: ${server.localUrl}${moved}` });
  } else items.push({ kind: 'note', label: `Server: stopped${state.error ? ` (${state.error})` : ''}` });
  items.push(
    { kind: 'action', label: 'Open Admin Window', action: 'open-admin', enabled: up, accelerator: 'CmdOrCtrl+Shift+A' },
    { kind: 'action', label: 'Copy API Base URL', action: 'copy-api-url', enabled: up, arg: server?.localUrl },
    { kind: 'separator' },
    { kind: 'checkbox', label: 'Share on Local Network', action: 'toggle-lan', enabled: !busy, checked: Boolean(server?.lanSharing) },
  );
  if (server?.lanSharing && !busy) {
    if (server.lanUrls.length === 0) items.push({ kind: 'note', label: 'No network address found' });
    for (const url of server.lanUrls) items.push({ kind: 'action', label: `Copy ${url}`, action: 'copy-url', enabled: true, arg: url });
  }
  items.push({ kind: 'separator' }, { kind: 'action', label: 'Open Data Folder', action: 'open-data-folder', enabled: true });
  if (state.hasInitialPassword) items.push({ kind: 'action', label: 'Show First Admin Password…', action: 'show-admin-password', enabled: true });
  if (task === 'backup') items.push({ kind: 'note', label: 'Backing up…' });
  items.push(
    { kind: 'action', label: 'Back up now…', action: 'backup-now', enabled: !busy && !task },
    { kind: 'action', label: 'Restore from backup…', action: 'restore-backup', enabled: !busy && !task },
  );
  items.push(
    { kind: 'action', label: 'Settings…', action: 'open-settings', enabled: !busy, accelerator: 'CmdOrCtrl+,' },
    { kind: 'separator' },
    { kind: 'action', label: 'Quit Folio', action: 'quit', enabled: true, accelerator: 'CmdOrCtrl+Q' },
  );
  return items;
}
