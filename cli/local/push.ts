import type { Command } from 'commander';
import { z } from 'zod';
import { waitForApplyReport } from '../../mesh/wait-for-apply';
import { EXIT } from '../errors';
import { colour, printJson, printLine } from '../output';
import { localMeshFor, NodeName, parseInput, plural } from './context';
import { formatReport } from './format';

const Input = z.object({
  node: NodeName,
  wait: z.boolean().default(false),
  timeout: z.coerce.number().positive().default(60),
  json: z.boolean().default(false),
});

export function registerPush(local: Command): void {
  local
    .command('push <node>')
    .description('send node every resource it should hold; the node applies on its own')
    .option('--wait', 'wait for the node to apply this push and print its apply report')
    .option('--timeout <seconds>', 'how long --wait waits', '60')
    .option('--json', 'print the receipt (and report) as JSON')
    .action(async (node: string, options: object, command: Command) => {
      const input = parseInput(Input, { node, ...options });
      const mesh = localMeshFor(command);
      const receipt = await mesh.push(input.node);
      const report = input.wait
        ? await waitForApplyReport(mesh, input.node, receipt.pushId, { timeoutMs: input.timeout * 1000 })
        : undefined;
      // Sent but not applied is what the operator must not miss (docs/design.md §1): fail the command.
      if (report && (report.applied !== receipt.sent || report.held.length > 0 || report.failed.length > 0)) {
        process.exitCode = EXIT.failure;
      }
      if (input.json) return printJson({ receipt, report: report ?? null });
      printLine(`sent ${plural(receipt.sent, 'resource')} to ${receipt.node} in push ${receipt.pushId}`);
      if (!report) return;
      formatReport(report).forEach((line) => printLine(line));
      if (process.exitCode === EXIT.failure) {
        printLine(
          colour.yellow(`not everything sent was applied: sent ${receipt.sent}, applied ${report.applied}`),
        );
      }
    });
}
