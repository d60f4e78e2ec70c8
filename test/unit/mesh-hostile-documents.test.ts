import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createMeshActivities } from '../../activities/mesh';
import { MeshUnreadableError } from '../../mesh/errors';
import { LocalMesh } from '../../mesh/local';
import { parseMeshJson } from '../../mesh/parse';
import { ApplyReport, type NodeState } from '../../mesh/schemas';

/** Found by the chaos suite (scripts/chaos, hostile mesh input): documents a lying or broken node may write. */
const REPORT = {
  pushId: 'novox-3',
  node: 'novox',
  applied: 1,
  appliedIds: ['route-proxy/container:edge'],
  held: [{ resource: 'route-proxy/container:ca', module: 'route-proxy', reason: 'assigned but not taken' }],
  failed: [],
  finishedAt: '2026-12-01T12:00:00.000Z',
};

const withReason = (reason: string) => ({ ...REPORT, held: [{ ...REPORT.held[0], reason }] });

const stateWith = (lastApply: NodeState['lastApply'], taken: string[] = []): NodeState => ({
  node: 'novox',
  adopted: true,
  hostRoot: '/',
  assigned: ['route-proxy'],
  taken,
  holds: [],
  lastApply,
});

/** What collectApplyEvidence makes of a node that sends these documents (the local mesh's two reads, overridden). */
function evidenceFrom(report: ApplyReport, state: NodeState) {
  const node = new (class extends LocalMesh {
    override applyReport = async () => report;
    override nodeState = async () => state;
  })({ stateDir: '/nonexistent' });
  const { collectApplyEvidence } = createMeshActivities({ mesh: node });
  return collectApplyEvidence({ node: 'novox', pushId: 'novox-3', timeoutMs: 1_000 });
}

describe("a node's hostile documents", () => {
  it("escapes control and bidi characters in a node's reasons, so they never reach an operator's terminal", () => {
    const cases: [string, string][] = [
      ['x\u001b[2J\u001b[H', 'x\\u001b[2J\\u001b[H'],
      ['held\r\nFAKE: all applied', 'held  FAKE: all applied'],
      ['nul\u0000', 'nul\\u0000'],
      ['csi \u009b31m', 'csi \\u009b31m'],
      ['rtl \u202e', 'rtl \\u202e'],
    ];
    for (const [reason, shown] of cases) {
      const report = parseMeshJson(ApplyReport, JSON.stringify(withReason(reason)), 'report');
      assert.equal(report.held[0]?.reason, shown);
    }
  });

  it("cuts a node's reason of 10 MB to a sentence an operator can read", () => {
    const report = parseMeshJson(ApplyReport, JSON.stringify(withReason('x'.repeat(10 << 20))), 'report');
    const reason = report.held[0]?.reason ?? '';
    assert.ok(reason.length <= 600, `${reason.length} characters`);
    assert.match(reason, /10485\d+ characters/);
  });

  it('refuses a resource id or push id with C1 controls or bidi overrides as unreadable', () => {
    for (const bad of ['route-proxy/container:edge\u009b2J', 'route-proxy/container:e\u202edge']) {
      assert.throws(
        () => parseMeshJson(ApplyReport, JSON.stringify({ ...REPORT, appliedIds: [bad] }), 'report'),
        MeshUnreadableError,
      );
    }
    assert.throws(
      () => parseMeshJson(ApplyReport, JSON.stringify({ ...REPORT, pushId: 'novox-3\u001b[31m' }), 'report'),
      MeshUnreadableError,
    );
  });

  it('says what did not parse without echoing the control characters it found', () => {
    const error = (() => {
      try {
        parseMeshJson(ApplyReport, '\u0000\u0000', 'report');
      } catch (e) {
        return e;
      }
      return undefined;
    })();
    assert.ok(error instanceof MeshUnreadableError);
    assert.ok(![...error.message].some((ch) => ch < ' '), JSON.stringify(error.message));
    assert.match(error.message, /\\u0000/);
  });

  it("finds the node state unreadable when its last apply of this push differs from the push's report", async () => {
    const report = parseMeshJson(ApplyReport, JSON.stringify(REPORT), 'report');
    const evidence = await evidenceFrom(report, stateWith({ ...REPORT, node: 'other', held: [] }));
    assert.equal(evidence.report.readable, true);
    assert.equal(evidence.nodeState.readable, false);
    assert.match(evidence.nodeState.readable ? '' : evidence.nodeState.error, /differs from the report/);
  });

  it('finds a report or state too big to carry as evidence unreadable, and says its size and what it lists', async () => {
    const held = Array.from({ length: 20_000 }, (_, i) => ({
      ...REPORT.held[0],
      reason: `hold ${i} `.padEnd(100, '.'),
    }));
    const big = parseMeshJson(ApplyReport, JSON.stringify({ ...REPORT, held }), 'report');
    const evidence = await evidenceFrom(big, stateWith(big));
    assert.ok(Buffer.byteLength(JSON.stringify(evidence)) < 64 * 1024, 'the result stays far below 2 MB');
    for (const document of [evidence.report, evidence.nodeState]) {
      assert.equal(document.readable, false);
      assert.match(
        document.readable ? '' : document.error,
        /it is \d+\.\d MB \(.*20,000 held.*\), more than the 256 KB/,
      );
    }
  });

  it('keeps a report of a node with hundreds of resources as it is', async () => {
    const ids = Array.from({ length: 500 }, (_, i) => `route-proxy/dir:/var/lib/route-proxy/d${i}`);
    const report = parseMeshJson(
      ApplyReport,
      JSON.stringify({ ...REPORT, applied: 500, appliedIds: ids }),
      'report',
    );
    const evidence = await evidenceFrom(report, stateWith(null, ['route-proxy']));
    assert.equal(evidence.report.readable && evidence.report.value.appliedIds.length, 500);
  });
});
