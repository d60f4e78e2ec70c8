import type { ApplyReport } from '../../mesh/schemas';
import { ReportTamperingMesh } from './report-tampering-mesh';

/**
 * What a hostile or broken node could write as a hold's reason: Markdown that would bold, link, embed an
 * image with a script or open a code span, and terminal controls (clear the screen, retitle the window,
 * return the cursor, reverse the text, a C1 CSI).
 */
export const HOSTILE_REASON =
  'found *not bold* _nor this_ [x](javascript:alert(1)) <img src=x onerror="document.title=1"> `code` # \u001b[2J\u001b]0;pwned\u0007\rover\u202eesrever\u009b31m on this adopted node';

/** The real local mesh whose nodes give every hold the hostile reason above. */
export class HostileReasonMesh extends ReportTamperingMesh {
  protected tamper(report: ApplyReport): ApplyReport {
    return { ...report, held: report.held.map((h) => ({ ...h, reason: HOSTILE_REASON })) };
  }

  override async nodeState(node: string) {
    const state = await super.nodeState(node);
    return { ...state, holds: state.holds.map((h) => ({ ...h, reason: HOSTILE_REASON })) };
  }
}
