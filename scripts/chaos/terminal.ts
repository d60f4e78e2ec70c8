import type { RunbookStatus } from '../../workflows/contracts';
import { spawnCli } from './cli';

/** How a following command (`start` or `watch`, with --json) ended: its exit and its last JSON line. */
export interface TerminalEnd {
  code: number | null;
  signal: NodeJS.Signals | null;
  /** The status on its `{"event": "end"}` line; absent when it died first or saw no status. */
  status?: RunbookStatus;
  stderr: string;
}

interface JsonLine {
  event?: string;
  status?: RunbookStatus | null;
}

/**
 * An operator's terminal running `mesh runbook start ... --json` or `mesh runbook watch <id> --json`: the
 * compiled CLI in a child process whose JSON lines say when it started the runbook and when it first showed
 * its steps. It can die as a terminal dies: SIGKILL, or SIGHUP as a closed terminal sends.
 */
export class Terminal {
  /** When it printed `{"event": "started"}` (start only). */
  startedAt: number | undefined;
  /** When it first showed the runbook's steps: it follows the runbook. */
  firstStepAt: number | undefined;
  private status: RunbookStatus | undefined;
  private readonly closed: Promise<void>;
  private readonly child: ReturnType<typeof spawnCli>;

  constructor(args: string[], env: NodeJS.ProcessEnv) {
    this.child = spawnCli(args, env);
    this.closed = new Promise((resolve) => this.child.once('close', () => resolve()));
    let pending = '';
    this.child.stdout?.on('data', (chunk: Buffer) => {
      pending += chunk.toString();
      const lines = pending.split('\n');
      pending = lines.pop() ?? '';
      for (const line of lines) this.read(line);
    });
  }

  get running(): boolean {
    return this.child.exitCode === null && this.child.signalCode === null;
  }

  /** Resolves once `condition` holds (checked every 20 ms), or false when the process ended or `timeoutMs` passed. */
  async until(condition: () => boolean, timeoutMs: number): Promise<boolean> {
    const deadline = Date.now() + timeoutMs;
    while (!condition()) {
      if (!this.running || Date.now() > deadline) return condition();
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    return true;
  }

  /**
   * Kills it with `signal` and waits for it to go; returns when the signal was sent, and whether it went by
   * itself within 10 s (else it is SIGKILLed: a CLI that outlives its terminal's SIGHUP is a finding).
   */
  async kill(signal: 'SIGKILL' | 'SIGHUP'): Promise<{ at: number; went: boolean }> {
    const at = Date.now();
    this.child.kill(signal);
    const went = await Promise.race([
      this.closed.then(() => true),
      new Promise<boolean>((resolve) => setTimeout(() => resolve(false), 10_000)),
    ]);
    if (!went) {
      this.child.kill('SIGKILL');
      await this.closed;
    }
    return { at, went };
  }

  /** Waits for its end (SIGKILL after `timeoutMs`). */
  async ended(timeoutMs: number): Promise<TerminalEnd> {
    const timer = setTimeout(() => this.child.kill('SIGKILL'), timeoutMs);
    await this.closed;
    clearTimeout(timer);
    const { code, signal, stderr } = this.child.output();
    return { code, signal, stderr, ...(this.status ? { status: this.status } : {}) };
  }

  private read(line: string): void {
    let parsed: JsonLine;
    try {
      parsed = JSON.parse(line) as JsonLine;
    } catch {
      return;
    }
    if (parsed.event === 'started') this.startedAt ??= Date.now();
    if (parsed.event === 'step') this.firstStepAt ??= Date.now();
    if (parsed.event === 'end' && parsed.status) this.status = parsed.status;
  }
}
