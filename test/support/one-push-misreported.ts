import { MeshRefusedError } from '../../mesh/errors';
import type { ApplyReport, PushReceipt } from '../../mesh/schemas';
import { ReportTamperingMesh } from './report-tampering-mesh';

/**
 * The local mesh, except that the one push after it unassigns `after` from a node is misreported: its
 * report (and the node state's last apply) leaves out one applied resource, with no hold saying why.
 * `refusing` names verbs its controller refuses from then on (`assign caddy`, `push`): a stand-in, named
 * so, for a controller that does not answer, which the runbook would retry for minutes before it waits.
 */
export class OnePushMisreported extends ReportTamperingMesh {
  after = '';
  readonly refusing = new Set<string>();
  private armed = false;
  private readonly tampered = new Set<string>();

  private refuseIf(verb: string): void {
    if (this.refusing.has(verb))
      throw new MeshRefusedError(`the controller refuses ${verb} (a test's stand-in)`);
  }

  override async assign(module: string, node: string): Promise<void> {
    this.refuseIf(`assign ${module}`);
    await super.assign(module, node);
  }

  override async unassign(module: string, node: string): Promise<void> {
    await super.unassign(module, node);
    if (module !== this.after) return;
    this.armed = true;
    this.after = ''; // once: a retry's push is reported as it is
  }

  override async push(node: string): Promise<PushReceipt> {
    this.refuseIf('push');
    const receipt = await super.push(node);
    if (this.armed) this.tampered.add(receipt.pushId);
    this.armed = false;
    return receipt;
  }

  protected tamper(report: ApplyReport): ApplyReport {
    if (!this.tampered.has(report.pushId) || report.appliedIds.length === 0) return report;
    return { ...report, applied: report.applied - 1, appliedIds: report.appliedIds.slice(1) };
  }
}
