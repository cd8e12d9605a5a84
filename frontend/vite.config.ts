/**
 * Vite + vitest configuration. In dev the page talks to the FastAPI backend through Vite's
 * proxy (same paths as production, where the backend serves dist/ itself), so no code path
 * differs between dev and prod. `$schemas` points at the generated protocol files in
 * ../shared_schemas, which live outside this package.
 */
import { defineConfig } from 'vitest/config';
import { svelte } from '@sveltejs/vite-plugin-svelte';
import { fileURLToPath } from 'node:url';

const schemas = fileURLToPath(new URL('../shared_schemas', import.meta.url));
const backend = process.env.DIDAX_BACKEND ?? 'http://127.0.0.1:8000';

export default defineConfig({
  plugins: [svelte()],
  resolve: { alias: { $schemas: schemas } },
  server: {
    fs: { allow: ['.', schemas] },
    proxy: {
      '/api': { target: backend, ws: true, changeOrigin: false },
      '/healthz': { target: backend },
    },
  },
  worker: { format: 'es' },
  build: { target: 'es2022', sourcemap: true, chunkSizeWarningLimit: 2500 },
  test: {
    include: ['src/**/*.test.ts'],
    environment: 'node',
  },
});
