import { Context } from '@temporalio/activity';
import { CopyProgress } from '../../workflows/contracts';

const NOTHING_RECORDED: CopyProgress = {
  files: 0,
  bytes: 0,
  totalFiles: 0,
  totalBytes: 0,
  bytesPerSecond: 0,
};

/**
 * The progress an earlier attempt of this activity heartbeated, so a retry resumes its copy. A retry
 * killed before its first heartbeat still resumes (the attempt number says so); a first attempt, or a
 * call outside an activity (tests, scripts), starts afresh.
 */
export function previousProgress(): CopyProgress | undefined {
  let info: Context['info'];
  try {
    info = Context.current().info;
  } catch {
    return undefined;
  }
  const parsed = CopyProgress.safeParse(info.heartbeatDetails);
  if (parsed.success) return parsed.data;
  return info.attempt > 1 ? NOTHING_RECORDED : undefined;
}
