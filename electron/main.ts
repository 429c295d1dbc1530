// Electron main process (the desktop issue fills it in): starts the embedded server and opens
// the admin window.
import { app } from 'electron';

export const productName = 'Folio';

if (process.versions.electron) {
  void app.whenReady();
}
