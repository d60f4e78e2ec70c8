import { LocalMesh } from '../../mesh/local';
import type { ApplyReport, NodeState } from '../../mesh/schemas';

/**
 * The real local mesh whose node reports pass through `tamper` on the way out: each apply report, and the
 * node state's last apply, so a test can make a node misreport what it did.
 */
export abstract class ReportTamperingMesh extends LocalMesh {
  protected abstract tamper(report: ApplyReport): ApplyReport;

  override async applyReport(node: string, pushId: string): Promise<ApplyReport | undefined> {
    const report = await super.applyReport(node, pushId);
    return report && this.tamper(report);
  }

  override async nodeState(node: string): Promise<NodeState> {
    const state = await super.nodeState(node);
    return { ...state, lastApply: state.lastApply && this.tamper(state.lastApply) };
  }
}
