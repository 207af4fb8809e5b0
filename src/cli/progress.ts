/** What a long import or export reports while it runs. */
export interface Progress {
  phase(name: string): void;
  addRecords(count: number): void;
  /** Prints the last state (when anything was shown) and stops the timer. */
  finish(outcome?: 'done' | 'rejected' | 'failed'): void;
}

export const NO_PROGRESS: Progress = { phase: () => {}, addRecords: () => {}, finish: () => {} };

export interface ProgressOptions {
  /** `import` or `export`: the line's first word. */
  readonly verb: string;
  readonly stream: NodeJS.WritableStream & { isTTY?: boolean };
  /** Bytes read (import) or written (export) so far. */
  readonly bytes: () => number;
  /** The file's size when known (import), for a percentage. */
  readonly totalBytes?: number;
  /** Seconds between plain lines when the stream is not a terminal. */
  readonly intervalSeconds: number;
}

/** The terminal line is redrawn this often. */
const TTY_REFRESH_MS = 250;

function megabytes(bytes: number): string {
  return `${(bytes / 1_000_000).toFixed(1)} MB`;
}

function elapsed(ms: number): string {
  const seconds = Math.floor(ms / 1000);
  return `${Math.floor(seconds / 60)}:${String(seconds % 60).padStart(2, '0')}`;
}

/**
 * Progress on standard error: on a terminal one line redrawn in place; otherwise a plain line
 * every `intervalSeconds` (none for a run shorter than that, so a quick command stays quiet).
 * Standard output is left to the command's summary.
 */
export class StderrProgress implements Progress {
  private readonly started = Date.now();
  private readonly tty: boolean;
  private readonly timer: NodeJS.Timeout;
  private current = 'starting';
  private records = 0;
  private shown = false;

  constructor(private readonly options: ProgressOptions) {
    this.tty = options.stream.isTTY === true;
    this.timer = setInterval(() => this.show(), this.tty ? TTY_REFRESH_MS : options.intervalSeconds * 1000);
    this.timer.unref();
  }

  phase(name: string): void {
    if (name === this.current) return;
    this.current = name;
    if (this.tty) this.show();
  }

  addRecords(count: number): void {
    this.records += count;
  }

  finish(outcome: 'done' | 'rejected' | 'failed' = 'done'): void {
    clearInterval(this.timer);
    if (!this.shown) return;
    this.current = outcome;
    this.show();
    if (this.tty) this.options.stream.write('\n');
  }

  line(): string {
    const ms = Date.now() - this.started;
    const bytes = this.options.bytes();
    const { totalBytes } = this.options;
    const size =
      totalBytes !== undefined && totalBytes > 0
        ? `${megabytes(bytes)} of ${megabytes(totalBytes)} read (${Math.min(100, Math.floor((bytes / totalBytes) * 100))}%)`
        : `${megabytes(bytes)} ${this.options.verb === 'export' ? 'written' : 'read'}`;
    const rate = ms > 0 ? Math.round((this.records / ms) * 1000) : 0;
    return `${this.options.verb}: ${this.current}, ${size}, ${this.records.toLocaleString('en')} records, ${rate.toLocaleString('en')} records/s, ${elapsed(ms)}`;
  }

  private show(): void {
    this.shown = true;
    if (this.tty) this.options.stream.write(`\r\x1b[2K${this.line()}`);
    else this.options.stream.write(`${this.line()}\n`);
  }
}
