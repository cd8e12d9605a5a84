/**
 * Ports, paths and the backend command shared by the Playwright config and the specs. Ports are
 * chosen once in the runner process and passed to workers through the environment (the config
 * is re-evaluated in every worker, so a fresh random port there would not match).
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const E2E_DIR = resolve(dirname(fileURLToPath(import.meta.url)), '..');
export const REPO = resolve(E2E_DIR, '..');
export const BACKEND_DIR = join(REPO, 'backend');
export const FRONTEND_DIR = join(REPO, 'frontend');
export const PYTHON = join(REPO, '.venv', 'bin', 'python');
export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/** A free loopback port, found synchronously (the config cannot await). */
export function freePort(): number {
  const out = execFileSync(process.execPath, [
    '-e',
    "const s=require('net').createServer();s.listen(0,'127.0.0.1',()=>{process.stdout.write(String(s.address().port));s.close()})",
  ]);
  return Number(out.toString());
}

function envPort(name: string): number {
  process.env[name] ??= String(freePort());
  return Number(process.env[name]);
}

export const UI_PORT = envPort('E2E_UI_PORT');
export const BACKEND_PORT = envPort('E2E_BACKEND_PORT');

export function tempDbPath(): string {
  process.env.E2E_DB_DIR ??= mkdtempSync(join(tmpdir(), 'didax-e2e-'));
  return join(process.env.E2E_DB_DIR, 'shares.sqlite3');
}

export const BACKEND_ARGS = (port: number) => [
  '-m',
  'app.main',
  '--host',
  '127.0.0.1',
  '--port',
  String(port),
];
