// Electron main process: one instance, the embedded Folio server (see embedded-server.ts) started
// on ready and stopped before exit, the admin UI in a locked-down window, the Folio menu and tray.
// Decisions live in the plain modules beside this file; this one only wires them to Electron.
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import v8 from 'node:v8';
import {
  app,
  BrowserWindow,
  clipboard,
  dialog,
  ipcMain,
  Menu,
  nativeImage,
  session,
  shell,
  Tray,
  type IpcMainInvokeEvent,
  type MenuItemConstructorOptions,
  type WebContents,
} from 'electron';
import { backUpTo, describeCounts, restoreFrom, restoreWithRestart, suggestedBackupPath } from './backups.js';
import { desktopPaths, openLogFile, readInitialAdminPassword } from './desktop-paths.js';
import { createEmbeddedServer, type RunningServer } from './embedded-server.js';
import { loginHint } from './first-start.js';
import { buildMenuModel, type MenuAction, type MenuItemModel } from './menu-model.js';
import { classifyNavigation, isLocalResource } from './navigation.js';
import { loadSettings, saveSettings, SettingsError, type DesktopSettings } from './settings.js';

/** `--name=value` from the command line (run-desktop.mjs and the end-to-end test pass these). */
function argValue(name: string): string | null {
  const prefix = `--${name}=`;
  const arg = process.argv.find((a) => a.startsWith(prefix));
  return arg ? arg.slice(prefix.length) : null;
}

// The heap policy `npm start` gives the headless server (package.json): V8 collects once its old
// generation grew by half, not by up to four times after a long write load such as an import
// (docs/decisions.md). V8 reads this flag at each collection, so setting it this early,
// before the embedded server starts, is the same as passing it on the command line.
v8.setFlagsFromString('--heap-growing-percent=50');

const here = path.dirname(fileURLToPath(import.meta.url));
app.setName('Folio');
const userDataArg = argValue('folio-user-data');
app.setPath('userData', userDataArg ? path.resolve(userDataArg) : path.join(app.getPath('appData'), 'Folio'));

if (!app.requestSingleInstanceLock()) {
  // Another Folio runs on this user-data folder: it gets a 'second-instance' event and shows itself.
  app.quit();
} else {
  runApp();
}

function runApp() {
  const appRoot = app.getAppPath();
  const paths = desktopPaths(app.getPath('userData'));
  const iconFile = path.join(appRoot, 'resources', 'icon.png');
  const trayIconFile = path.join(appRoot, 'resources', process.platform === 'darwin' ? 'trayTemplate.png' : 'tray.png');
  const logFile = openLogFile(paths);
  const log = (line: string) => {
    logFile.write(line);
    if (!app.isPackaged) console.log(line);
  };

  const loaded = loadSettings(paths.settingsFile);
  let settings: DesktopSettings = loaded.settings;
  for (const problem of loaded.problems) log(`settings: ${problem}`);

  // Packaged builds carry better-sqlite3 rebuilt for Electron; a checkout gets one from run-desktop.
  const sqliteNativeBinding = app.isPackaged ? null : argValue('folio-sqlite-binding');
  const server = createEmbeddedServer({ dataDir: paths.dataDir, uiDir: path.join(appRoot, 'ui', 'dist'), sqliteNativeBinding, log });

  let busy = true;
  /** A backup or restore started from the menu is under way. */
  let task: 'backup' | 'restore' | null = null;
  let startError: string | null = null;
  let adminWindow: BrowserWindow | null = null;
  let settingsWindow: BrowserWindow | null = null;
  let tray: Tray | null = null;
  let stopped = false;
  let stopping = false;

  const serverOrigin = () => server.current()?.localUrl ?? null;

  // ---- menus -------------------------------------------------------------------------------------
  function toTemplate(items: MenuItemModel[]): MenuItemConstructorOptions[] {
    return items.map((item): MenuItemConstructorOptions => {
      switch (item.kind) {
        case 'separator':
          return { type: 'separator' };
        case 'note':
          return { label: item.label, enabled: false };
        case 'checkbox':
          return { type: 'checkbox', label: item.label, enabled: item.enabled, checked: item.checked, click: () => void perform(item.action) };
        case 'action':
          return { label: item.label, enabled: item.enabled, accelerator: item.accelerator, click: () => void perform(item.action, item.arg) };
      }
    });
  }

  function refreshMenus() {
    const model = buildMenuModel({
      server: server.current(),
      busy,
      error: startError,
      hasInitialPassword: readInitialAdminPassword(paths) !== null,
      task,
    });
    const folioMenu = toTemplate(model);
    const template: MenuItemConstructorOptions[] = [
      { label: process.platform === 'darwin' ? 'Folio' : '&Folio', submenu: folioMenu },
      { role: 'editMenu' },
      { role: 'viewMenu' },
      { role: 'windowMenu' },
    ];
    Menu.setApplicationMenu(Menu.buildFromTemplate(template));
    tray?.setContextMenu(Menu.buildFromTemplate(folioMenu));
  }

  function createTray() {
    try {
      const image = nativeImage.createFromPath(trayIconFile);
      tray = new Tray(image.isEmpty() ? nativeImage.createFromPath(iconFile) : image);
      tray.setToolTip('Folio');
      tray.on('click', () => showAdminWindow());
    } catch (err) {
      log(`no tray icon on this desktop: ${(err as Error).message}`);
      tray = null;
    }
  }

  // ---- server --------------------------------------------------------------------------------------
  async function applySettings(next: DesktopSettings): Promise<RunningServer | null> {
    settings = next;
    busy = true;
    refreshMenus();
    try {
      const running = await server.restart(settings);
      startError = null;
      return running;
    } catch (err) {
      startError = (err as Error).message;
      log(`server failed to start: ${(err as Error).stack ?? startError}`);
      dialog.showErrorBox('Folio could not start its server', startError);
      return null;
    } finally {
      busy = false;
      refreshMenus();
    }
  }

  function tellAboutPort(running: RunningServer) {
    if (running.port === running.preferredPort) return;
    void dialog.showMessageBox({
      type: 'info',
      title: 'Folio',
      message: `Port ${running.preferredPort} is in use by another program, so Folio runs on port ${running.port}.`,
      detail: `The API is at ${running.localUrl}. Choose another port in Settings to make it stable.`,
    });
  }

  function showLoginHint(firstStart: boolean) {
    const running = server.current();
    const hint = loginHint({
      username: server.initialAdmin()?.username ?? 'admin',
      password: readInitialAdminPassword(paths),
      adminUrl: running?.adminUrl ?? '(server stopped)',
      passwordFile: paths.initialPasswordFile,
      firstStart,
    });
    const password = readInitialAdminPassword(paths);
    void dialog
      .showMessageBox({ type: 'info', title: hint.title, message: hint.message, detail: hint.detail, buttons: password ? ['OK', 'Copy Password'] : ['OK'] })
      .then(({ response }) => {
        if (response === 1 && password) clipboard.writeText(password);
      });
  }

  async function toggleLanSharing() {
    const next = saveSettings(paths.settingsFile, settings, { lanSharing: !settings.lanSharing });
    const running = await applySettings(next);
    if (!running) return;
    reloadAdminWindow(running);
    if (running.lanSharing) {
      void dialog.showMessageBox({
        type: 'info',
        title: 'Sharing on the local network',
        message: running.lanUrls.length
          ? `Other devices on your network can now reach Folio at:\n${running.lanUrls.join('\n')}`
          : 'Folio now listens on every network interface, but this computer has no network address right now.',
        detail:
          'They get the whole API and the admin UI: anyone can read published content, and anyone who knows a ' +
          'user name and password can log in. Turn sharing off on untrusted networks.',
      });
    }
  }

  // ---- backups ------------------------------------------------------------------------------------
  async function backUpNow() {
    const { canceled, filePath } = await dialog.showSaveDialog({
      title: 'Back up Folio',
      defaultPath: suggestedBackupPath(paths.dataDir),
      filters: [{ name: 'Folio backups', extensions: ['gz'] }],
    });
    if (canceled || !filePath) return;
    task = 'backup';
    refreshMenus();
    try {
      const made = await backUpTo({ dataDir: paths.dataDir, sqliteNativeBinding }, filePath);
      log(`backup written to ${made.file} (${made.size} bytes)`);
      void dialog.showMessageBox({ type: 'info', title: 'Backup made', message: `Folio was backed up to ${made.file}.`, detail: `It holds ${describeCounts(made.counts)}.` });
    } catch (err) {
      log(`backup failed: ${(err as Error).stack ?? err}`);
      dialog.showErrorBox('The backup failed', (err as Error).message);
    } finally {
      task = null;
      refreshMenus();
    }
  }

  async function restoreFromBackup() {
    const { canceled, filePaths } = await dialog.showOpenDialog({
      title: 'Restore Folio from a backup',
      properties: ['openFile'],
      filters: [{ name: 'Folio backups', extensions: ['gz'] }, { name: 'All files', extensions: ['*'] }],
    });
    if (canceled || !filePaths[0]) return;
    const { response } = await dialog.showMessageBox({
      type: 'warning',
      title: 'Restore from backup',
      message: `Replace everything in Folio with the backup ${path.basename(filePaths[0])}?`,
      detail: 'Content, users, roles, the model and files are replaced by the backup\'s. The server stops while the backup is checked and restored, and everyone signs in again afterwards. A damaged backup is refused and changes nothing.',
      buttons: ['Cancel', 'Replace with Backup'],
      defaultId: 0,
      cancelId: 0,
    });
    if (response !== 1) return;
    task = 'restore';
    busy = true;
    refreshMenus();
    const outcome = await restoreWithRestart(
      { stop: () => server.stop(), start: () => server.start(settings) },
      () => restoreFrom({ dataDir: paths.dataDir, sqliteNativeBinding }, filePaths[0]),
    );
    task = null;
    busy = false;
    startError = outcome.startError;
    refreshMenus();
    if (outcome.running) reloadAdminWindow(outcome.running);
    if (outcome.counts) {
      log(`restored ${filePaths[0]}`);
      void dialog.showMessageBox({ type: 'info', title: 'Backup restored', message: 'Folio was restored from the backup.', detail: `It now holds ${describeCounts(outcome.counts)}. Sign in again.` });
    } else {
      log(`restore failed: ${outcome.error}`);
      dialog.showErrorBox('The backup was not restored', `${outcome.error}\n\nNothing was changed.`);
    }
    if (outcome.startError) dialog.showErrorBox('Folio could not start its server', outcome.startError);
  }

  // ---- windows -------------------------------------------------------------------------------------
  const secureWebPreferences = (preload: string) => ({
    contextIsolation: true,
    nodeIntegration: false,
    sandbox: true,
    webSecurity: true,
    webviewTag: false,
    preload: path.join(here, preload),
  });

  function showAdminWindow() {
    const running = server.current();
    if (!running) return;
    if (adminWindow) {
      if (adminWindow.isMinimized()) adminWindow.restore();
      adminWindow.show();
      adminWindow.focus();
      return;
    }
    adminWindow = new BrowserWindow({
      width: 1280,
      height: 840,
      minWidth: 720,
      minHeight: 480,
      title: 'Folio',
      icon: iconFile,
      show: false,
      webPreferences: secureWebPreferences('preload.cjs'),
    });
    adminWindow.once('ready-to-show', () => adminWindow?.show());
    adminWindow.on('closed', () => {
      adminWindow = null;
    });
    void adminWindow.loadURL(running.adminUrl);
  }

  function reloadAdminWindow(running: RunningServer) {
    if (adminWindow) void adminWindow.loadURL(running.adminUrl);
  }

  function openSettingsWindow() {
    if (settingsWindow) return settingsWindow.focus();
    settingsWindow = new BrowserWindow({
      width: 520,
      height: 520,
      resizable: false,
      minimizable: false,
      title: 'Folio Settings',
      parent: adminWindow ?? undefined,
      icon: iconFile,
      webPreferences: secureWebPreferences('settings-preload.cjs'),
    });
    settingsWindow.setMenuBarVisibility(false);
    settingsWindow.on('closed', () => {
      settingsWindow = null;
    });
    void settingsWindow.loadFile(path.join(appRoot, 'electron', 'settings', 'settings.html'));
  }

  // Every web contents (windows, devtools) is locked: no navigation off the local server, new
  // windows become system-browser tabs, no <webview>.
  app.on('web-contents-created', (_event, contents: WebContents) => {
    const guard = (event: Electron.Event, url: string) => {
      const verdict = classifyNavigation(url, serverOrigin());
      if (verdict === 'allow') return;
      event.preventDefault();
      if (verdict === 'external') void shell.openExternal(url);
    };
    contents.on('will-navigate', guard);
    contents.on('will-redirect', guard);
    contents.on('will-attach-webview', (event) => event.preventDefault());
    contents.setWindowOpenHandler(({ url }) => {
      if (classifyNavigation(url, serverOrigin()) !== 'deny') void shell.openExternal(url);
      return { action: 'deny' };
    });
  });

  // ---- IPC (only from our own pages) -------------------------------------------------------------------
  const fromAdminPage = (event: IpcMainInvokeEvent) => classifyNavigation(event.senderFrame?.url ?? '', serverOrigin()) === 'allow';
  const fromSettingsPage = (event: { sender: WebContents }) => settingsWindow !== null && event.sender === settingsWindow.webContents;

  ipcMain.handle('folio:info', (event) => {
    if (!fromAdminPage(event)) throw new Error('not allowed');
    const running = server.current();
    return { version: app.getVersion(), apiUrl: running?.localUrl ?? null, lanSharing: running?.lanSharing ?? false, lanUrls: running?.lanUrls ?? [] };
  });
  ipcMain.handle('folio:settings:load', (event) => {
    if (!fromSettingsPage(event)) throw new Error('not allowed');
    return { settings, dataDir: paths.dataDir, settingsFile: paths.settingsFile, running: server.current() };
  });
  ipcMain.handle('folio:settings:save', async (event, changes: unknown) => {
    if (!fromSettingsPage(event)) throw new Error('not allowed');
    let next: DesktopSettings;
    try {
      next = saveSettings(paths.settingsFile, settings, changes);
    } catch (err) {
      if (err instanceof SettingsError) return { ok: false, field: err.field, message: err.message };
      throw err;
    }
    const running = await applySettings(next);
    if (!running) return { ok: false, field: null, message: startError };
    reloadAdminWindow(running);
    tellAboutPort(running);
    return { ok: true, running };
  });
  ipcMain.on('folio:settings:close', (event) => {
    if (fromSettingsPage(event)) settingsWindow?.close();
  });

  async function perform(action: MenuAction, arg?: string) {
    switch (action) {
      case 'open-admin':
        return showAdminWindow();
      case 'copy-api-url':
      case 'copy-url':
        if (arg) clipboard.writeText(arg);
        return;
      case 'toggle-lan':
        return toggleLanSharing();
      case 'open-data-folder':
        await shell.openPath(paths.dataDir);
        return;
      case 'show-admin-password':
        return showLoginHint(false);
      case 'backup-now':
        return backUpNow();
      case 'restore-backup':
        return restoreFromBackup();
      case 'open-settings':
        return openSettingsWindow();
      case 'quit':
        return app.quit();
    }
  }

  // ---- life cycle ----------------------------------------------------------------------------------
  app.on('second-instance', () => showAdminWindow());
  app.on('activate', () => showAdminWindow());
  // Closing the last window quits, except on macOS (the dock reopens it) and while the server is
  // shared on the network (the tray reopens it).
  app.on('window-all-closed', () => {
    if (process.platform === 'darwin' || (settings.lanSharing && tray)) return;
    app.quit();
  });
  // Quitting waits for the server: in-flight requests finish and the database is closed first.
  app.on('before-quit', (event) => {
    if (stopped) return;
    event.preventDefault();
    if (stopping) return;
    stopping = true;
    log('quitting: stopping the server');
    server
      .stop()
      .catch((err) => log(`server stop failed: ${(err as Error).message}`))
      .finally(() => {
        stopped = true;
        logFile.close();
        tray?.destroy();
        app.quit();
      });
  });
  for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => app.quit());

  void app.whenReady().then(async () => {
    // Nothing remote: the windows may only fetch from the embedded server and the app's own files.
    session.defaultSession.webRequest.onBeforeRequest((details, callback) => {
      callback({ cancel: !isLocalResource(details.url, serverOrigin()) });
    });
    session.defaultSession.setPermissionRequestHandler((_contents, permission, callback) => callback(permission === 'clipboard-sanitized-write'));
    createTray();
    const running = await applySettings(settings);
    if (!running) return;
    showAdminWindow();
    tellAboutPort(running);
    if (server.initialAdmin()?.passwordFile) showLoginHint(true);
  });
}
