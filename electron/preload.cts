// Preload of the admin window (sandboxed, CommonJS): exposes only read-only facts about the
// desktop app. The admin UI works the same without it (in a browser `window.folioDesktop` is absent).
import { contextBridge, ipcRenderer } from 'electron';

contextBridge.exposeInMainWorld('folioDesktop', {
  /** {version, apiUrl, lanSharing, lanUrls} of the running app. */
  info: (): Promise<unknown> => ipcRenderer.invoke('folio:info'),
});
