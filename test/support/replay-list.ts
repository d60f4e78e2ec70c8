import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { KINDS, runbookWorkflowTypes, type KindRegistry } from '../../workflows/kinds';

export const HISTORIES = join(__dirname, '..', 'histories');

/** The workflow type each committed recording ran, by file name. */
export function recordedTypes(dir: string = HISTORIES): Map<string, string> {
  const types = new Map<string, string>();
  for (const file of readdirSync(dir).filter((name) => name.endsWith('.json'))) {
    const history = JSON.parse(readFileSync(join(dir, file), 'utf8')) as {
      events?: { workflowExecutionStartedEventAttributes?: { workflowType?: { name?: string } } }[];
    };
    const type = history.events?.[0]?.workflowExecutionStartedEventAttributes?.workflowType?.name;
    if (type) types.set(file, type);
  }
  return types;
}

/**
 * The replay suite's list: every workflow type of the registry (each kind's runbook and its fleet form),
 * with the committed recordings of it. A type with none is a kind whose runs no replay protects yet.
 */
export function replayList(
  registry: KindRegistry = KINDS,
  recorded: Map<string, string> = recordedTypes(),
): { type: string; recordings: string[] }[] {
  return runbookWorkflowTypes(registry).map((type) => ({
    type,
    recordings: [...recorded].filter(([, ran]) => ran === type).map(([file]) => file),
  }));
}
