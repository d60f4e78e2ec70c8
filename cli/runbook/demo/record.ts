import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';
import { RunbookKind } from '../../../workflows/contracts';
import { UsageError } from '../../errors';

/** What `--resume` needs to find the demo's runbook again: its kind and the input it was started with. */
const DemoRecord = z.object({ kind: RunbookKind, input: z.unknown() });
export type DemoRecord = z.infer<typeof DemoRecord>;

const recordFile = (stateDir: string) => join(stateDir, 'demo.json');

export async function writeDemoRecord(stateDir: string, record: DemoRecord): Promise<void> {
  await writeFile(recordFile(stateDir), `${JSON.stringify(record, null, 2)}\n`);
}

export async function readDemoRecord(stateDir: string): Promise<DemoRecord> {
  const text = await readFile(recordFile(stateDir), 'utf8').catch(() => undefined);
  const record = text === undefined ? undefined : parsed(text);
  if (!record) {
    throw new UsageError(
      `There is no demo runbook to resume in ${stateDir}.`,
      'Start one with `mesh runbook demo` (with the same --state-dir).',
    );
  }
  return record;
}

function parsed(text: string): DemoRecord | undefined {
  try {
    const record = DemoRecord.safeParse(JSON.parse(text));
    return record.success ? record.data : undefined;
  } catch {
    return undefined;
  }
}
