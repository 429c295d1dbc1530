import { defineConfig } from 'vite';
import react from '@vitejs/plugin-react';

// The admin UI is served by the server at /admin.
export default defineConfig({
  root: import.meta.dirname,
  base: '/admin/',
  plugins: [react()],
  build: { outDir: 'dist', emptyOutDir: true },
});
