import type { ProgressSink, StageLine } from './report.ts';

const BAR_WIDTH = 24;
/** ANSI: cursor up one line, clear it. The bar always occupies the last line and is redrawn in place. */
const REDRAW = '\x1b[1A\x1b[2K';

function bar(fraction: number | null): string {
  if (fraction === null || !Number.isFinite(fraction)) return `[${'?'.repeat(BAR_WIDTH)}]`;
  const f = Math.min(1, Math.max(0, fraction));
  const filled = Math.round(f * BAR_WIDTH);
  return `[${'#'.repeat(filled)}${'.'.repeat(BAR_WIDTH - filled)}] ${(f * 100).toFixed(0).padStart(3)}%`;
}

function mib(bytes: number): string {
  return `${(bytes / 1048576).toFixed(1)} MiB`;
}

/**
 * Progress for a terminal: one bar per file download and per stage, redrawn in place on the last line
 * and left behind, finished, when the next one starts. `writeLine` prints one line (a newline is added).
 */
export function terminalProgress(writeLine: (text: string) => void, now = () => Date.now()): ProgressSink {
  let live = false;
  let lastDraw = 0;
  const draw = (text: string, force: boolean) => {
    const t = now();
    if (!force && live && t - lastDraw < 200) return;
    lastDraw = t;
    writeLine(`${live ? REDRAW : ''}${text}`);
    live = true;
  };
  return {
    stageStarted(country, stage) {
      live = false;
      draw(`${country} ${stage} ${bar(null)}`, true);
    },
    stageProgress(country, stage, fraction, detail) {
      draw(`${country} ${stage} ${bar(fraction)}${detail ? ` ${detail}` : ''}`, false);
    },
    stageFinished(line: StageLine) {
      const rows = line.rows === null ? '' : ` ${line.rows.toLocaleString('en-US')} rows`;
      draw(`${line.country} ${line.stage} ${bar(1)}${rows} ${line.seconds.toFixed(1)} s`, true);
      live = false;
    },
    fileProgress(file, done, total) {
      draw(
        `${file} ${bar(total ? done / total : null)} ${mib(done)}${total ? ` of ${mib(total)}` : ''}`,
        false,
      );
    },
    fileFinished(file, bytes, seconds) {
      draw(`${file} ${bar(1)} ${mib(bytes)} ${seconds.toFixed(1)} s`, true);
      live = false;
    },
    message(text) {
      live = false;
      writeLine(text);
    },
  };
}

/**
 * Progress for logs (cron, systemd): no bars, one JSON line per finished stage and file, so a log shipper
 * can parse them and a failure shows which stage it reached.
 */
export function structuredProgress(writeLine: (text: string) => void, now = () => new Date()): ProgressSink {
  const emit = (fields: Record<string, unknown>) =>
    writeLine(JSON.stringify({ ts: now().toISOString(), event: 'ingest', ...fields }));
  return {
    stageStarted() {},
    stageProgress() {},
    stageFinished(line) {
      emit({
        country: line.country,
        stage: line.stage,
        rows: line.rows,
        seconds: Number(line.seconds.toFixed(2)),
      });
    },
    fileProgress() {},
    fileFinished(file, bytes, seconds) {
      emit({ stage: 'download', file, bytes, seconds: Number(seconds.toFixed(2)) });
    },
    message(text) {
      emit({ msg: text });
    },
  };
}
