import type { temporal } from '@temporalio/proto';
import { CopyProgress } from '../../../workflows/contracts';
import { firstValue } from '../../../client/temporal-reads/payloads';

/** What a long activity (copy, verify) heartbeats, as the Temporal server holds it, and which activity. */
export type ActivityProgress = CopyProgress & { activity: string };

type PendingActivity = temporal.api.workflow.v1.IPendingActivityInfo;

/** The progress of the first pending activity that heartbeats one; anything else is not progress. */
export function progressOf(pending: PendingActivity[] | null | undefined): ActivityProgress | undefined {
  for (const activity of pending ?? []) {
    const parsed = CopyProgress.safeParse(firstValue(activity.heartbeatDetails));
    if (parsed.success && parsed.data.totalBytes > 0) {
      return { ...parsed.data, activity: activity.activityType?.name ?? 'activity' };
    }
  }
  return undefined;
}

const WIDTH = 24;

function size(bytes: number): string {
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return `${value.toFixed(unit === 0 ? 0 : 1)} ${units[unit]}`;
}

/** `copyTree [#########···············] 38%  190.0 MiB of 500.0 MiB, 12.1 MiB/s, ETA 26s` */
export function progressLine(progress: ActivityProgress): string {
  const fraction = Math.min(1, progress.bytes / progress.totalBytes);
  const filled = Math.round(fraction * WIDTH);
  const bar = `[${'#'.repeat(filled)}${'·'.repeat(WIDTH - filled)}]`;
  const rate = progress.bytesPerSecond > 0 ? `${size(progress.bytesPerSecond)}/s` : 'starting';
  const left = progress.totalBytes - progress.bytes;
  const eta =
    progress.bytesPerSecond > 0 ? `ETA ${Math.ceil(left / progress.bytesPerSecond)}s` : 'ETA unknown';
  const percent = `${Math.floor(fraction * 100)}%`.padStart(4);
  return `${progress.activity} ${bar} ${percent}  ${size(progress.bytes)} of ${size(progress.totalBytes)}, ${progress.files}/${progress.totalFiles} files, ${rate}, ${eta}`;
}
