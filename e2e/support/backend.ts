/**
 * Starting and stopping a private backend process, for specs that restart the server. The
 * shared backend is started by the Playwright config; this one belongs to a single spec.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { BACKEND_ARGS, BACKEND_DIR, PYTHON } from './env';

export class Backend {
  proc: ChildProcess | null = null;
  log = '';

  constructor(
    readonly port: number,
    readonly dbPath: string,
  ) {}

  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  async start(timeoutMs = 90_000) {
    const proc = spawn(PYTHON, BACKEND_ARGS(this.port), {
      cwd: BACKEND_DIR,
      env: { ...process.env, DIDAX_DB_PATH: this.dbPath },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    this.proc = proc;
    proc.stdout?.on('data', (d) => (this.log += d));
    proc.stderr?.on('data', (d) => (this.log += d));
    const deadline = Date.now() + timeoutMs;
    while (Date.now() < deadline) {
      if (proc.exitCode !== null) throw new Error(`backend exited: ${this.log.slice(-2000)}`);
      try {
        const r = await fetch(`${this.url}/healthz`);
        if (r.ok) return;
      } catch {
        // not listening yet
      }
      await new Promise((r) => setTimeout(r, 250));
    }
    throw new Error(`backend not healthy in ${timeoutMs} ms: ${this.log.slice(-2000)}`);
  }

  async stop() {
    const proc = this.proc;
    this.proc = null;
    if (!proc || proc.exitCode !== null) return;
    const exited = new Promise((r) => proc.once('exit', r));
    proc.kill('SIGTERM');
    const timer = setTimeout(() => proc.kill('SIGKILL'), 10_000);
    await exited;
    clearTimeout(timer);
  }
}
