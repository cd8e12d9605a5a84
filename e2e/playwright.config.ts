/**
 * Playwright set-up. Debian's Chromium is used through executablePath (no browser download).
 * Three projects:
 *  - ui:   UI-only specs against the built page served by `vite preview`, with the websocket
 *          replaced by page.routeWebSocket replaying shared_schemas samples and synthetic cards;
 *  - full: specs against the REAL backend (started below with a temp share DB) and real kernels;
 *  - perf: the graph and player measurements (only with DIDAX_PERF=1, see `npm run perf`).
 */
import { defineConfig } from '@playwright/test';
import {
  BACKEND_ARGS,
  BACKEND_DIR,
  BACKEND_PORT,
  CHROMIUM,
  FRONTEND_DIR,
  PYTHON,
  tempDbPath,
  UI_PORT,
} from './support/env';

const perf = process.env.DIDAX_PERF === '1';

export default defineConfig({
  timeout: 60_000,
  expect: { timeout: 15_000 },
  fullyParallel: false,
  // Two shared cores and real kernels: one worker keeps timings honest and runs stable.
  workers: 1,
  retries: process.env.CI ? 1 : 0,
  reporter: [['list']],
  outputDir: 'test-results',
  use: {
    screenshot: 'only-on-failure',
    trace: 'retain-on-failure',
    viewport: { width: 1360, height: 860 },
    launchOptions: {
      executablePath: CHROMIUM,
      args: [
        '--no-sandbox',
        '--disable-gpu',
        '--disable-quic',
        '--no-first-run',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
      ],
    },
  },
  projects: [
    { name: 'ui', testDir: 'specs/ui', use: { baseURL: `http://127.0.0.1:${UI_PORT}` } },
    {
      name: 'full',
      testDir: 'specs/full',
      use: { baseURL: `http://127.0.0.1:${BACKEND_PORT}` },
    },
    ...(perf
      ? [
          {
            name: 'perf',
            testDir: 'perf',
            // No trace: its DOM snapshots after each action would land in the frames measured.
            use: { baseURL: `http://127.0.0.1:${UI_PORT}`, trace: 'off' as const },
          },
        ]
      : []),
  ],
  webServer: [
    {
      command: `npm run preview -- --host 127.0.0.1 --port ${UI_PORT} --strictPort`,
      cwd: FRONTEND_DIR,
      url: `http://127.0.0.1:${UI_PORT}/`,
      reuseExistingServer: false,
      timeout: 60_000,
    },
    {
      command: `${PYTHON} ${BACKEND_ARGS(BACKEND_PORT).join(' ')}`,
      cwd: BACKEND_DIR,
      url: `http://127.0.0.1:${BACKEND_PORT}/healthz`,
      env: { DIDAX_DB_PATH: tempDbPath() },
      reuseExistingServer: false,
      timeout: 120_000,
      stdout: 'ignore',
      // Kernel logs are long; E2E_SERVER_LOG=1 shows them when debugging a failure.
      stderr: process.env.E2E_SERVER_LOG === '1' ? 'pipe' : 'ignore',
    },
  ],
});
