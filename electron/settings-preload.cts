// Preload of the settings window (sandboxed, CommonJS): reads and saves the desktop settings.
import { contextBridge, ipcRenderer } from 'electron';

contextBridge.exposeInMainWorld('folioSettings', {
  load: (): Promise<unknown> => ipcRenderer.invoke('folio:settings:load'),
  save: (changes: unknown): Promise<unknown> => ipcRenderer.invoke('folio:settings:save', changes),
  close: (): void => ipcRenderer.send('folio:settings:close'),
});
