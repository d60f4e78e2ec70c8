import { readFileSync } from 'node:fs';
import { UsageError } from '../../errors';
import { printJson, printLine } from '../../output';
import { forTerminal } from '../../terminal-text';
import type { RunbookClient } from '../client';
import { decisionLine } from '../render-gate';
import { eventsOfRuns } from './read';
import { decisionsByRun, verifyDecisions } from './verify';

/**
 * `mesh runbook history <id> --verify <allowed-signers>`: each decision of every run, verified, not verified
 * (why) or unsigned; exit 1 when a signed decision does not verify against the file (a signer removed since).
 */
export async function printVerified(
  rb: RunbookClient,
  id: string,
  file: string,
  json: boolean,
): Promise<void> {
  let signers: string;
  try {
    signers = readFileSync(file, 'utf8');
  } catch (error) {
    throw new UsageError(
      `--verify ${file} cannot be read: ${error instanceof Error ? error.message : String(error)}.`,
      'Give the allowed_signers file the decisions should verify against.',
    );
  }
  const checks = verifyDecisions(decisionsByRun(await eventsOfRuns(rb, id)), signers, {
    namespace: rb.target.namespace,
    runbook: id,
  });
  if (typeof checks === 'string')
    throw new UsageError(`--verify ${file}: ${checks}.`, 'Fix that line, or give another file.');
  const failed = checks.filter((check) => check.outcome === 'not verified').length;
  if (failed > 0) process.exitCode = 1;
  if (json) return printJson({ runbook: id, signers: file, checks, failed });
  for (const check of checks)
    printLine(
      `${check.outcome}: ${decisionLine(forTerminal(check.decision))} — ${forTerminal(check.detail)}`,
    );
  const signed = checks.filter((check) => check.outcome !== 'unsigned').length;
  printLine(
    failed > 0
      ? `${failed} of ${signed} signed decisions of ${id} do not verify against ${file}.`
      : `${signed} signed decision${signed === 1 ? '' : 's'} of ${id} verify against ${file}.`,
  );
}
