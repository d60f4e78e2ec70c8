import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, it } from 'node:test';
import { historyFromJSON } from '@temporalio/common/lib/proto-utils';
import { PATCHES } from '../../workflows/runbook/patch-lifecycle';
import * as R from '../../workflows/runbook/revision';
import { FLEET_REPORTS } from '../../workflows/runbook/parent-report';
import { revisionOf } from '../support/history-revision';

/**
 * The lifecycle of docs/production.md "Versions and their retirement", checked against the code and the recordings, so
 * a patch, its branch, its frozen copy or its histories cannot outlive the revisions that need them.
 */
const ROOT = join(__dirname, '..', '..');
const WORKFLOWS = join(ROOT, 'workflows');
const HISTORIES = join(ROOT, 'test', 'histories');
const LIFECYCLE_PAGE = join(ROOT, 'docs', 'production.md');
const OLDEST = R.OLDEST_SUPPORTED_REVISION;

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sources(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

/** Every patch constant by name, as the workflows import them. */
const CONSTANTS: Record<string, string> = { FLEET_REPORTS };
for (const [name, value] of Object.entries(R)) if (typeof value === 'string') CONSTANTS[name] = value;

/** Each `patched(X)` and `deprecatePatch(X)` in workflows/, by the patch id X names. */
function calls(): { how: 'patched' | 'deprecatePatch'; id: string; where: string }[] {
  return sources(WORKFLOWS).flatMap((file) =>
    [...readFileSync(file, 'utf8').matchAll(/\b(patched|deprecatePatch)\((\s*[^)\s][^)]*)\)/g)].map(
      (match) => {
        const argument = (match[2] ?? '').trim();
        const id = CONSTANTS[argument];
        const where = relative(ROOT, file);
        assert.ok(id, `${where}: ${match[0]} names no patch constant of workflows/runbook/revision.ts`);
        return { how: match[1] as 'patched' | 'deprecatePatch', id, where };
      },
    ),
  );
}

const histories = () => readdirSync(HISTORIES).filter((file) => file.endsWith('.json'));

describe('versions leave with their last run (the revision lifecycle)', () => {
  it('every patch the workflows call is in the lifecycle table, once, and every row is called', () => {
    const ids = PATCHES.map((p) => p.id);
    assert.equal(new Set(ids).size, ids.length, 'a patch is listed twice');
    const called = new Set(calls().map((c) => c.id));
    assert.deepEqual(
      [...called].filter((id) => !ids.includes(id)),
      [],
      'called but not in PATCHES',
    );
    assert.deepEqual(
      ids.filter((id) => !called.has(id)),
      [],
      'in PATCHES but called nowhere: remove the row',
    );
  });

  it('a patch every supported run holds is deprecated: no patched() branch and no before-history left', () => {
    for (const patch of PATCHES.filter((p) => p.everyRunFrom <= OLDEST)) {
      const branches = calls().filter((c) => c.id === patch.id && c.how === 'patched');
      assert.deepEqual(
        branches,
        [],
        `${patch.id}: every run of revision ${OLDEST}+ holds it; deprecatePatch()`,
      );
      assert.ok(patch.deprecatedIn !== undefined && patch.deprecatedIn <= R.RUNBOOK_REVISION, patch.id);
      const before = histories().filter((file) => file.includes(`.before-${patch.id}.`));
      assert.deepEqual(before, [], `${patch.id}: its old branch is gone, so are its recordings`);
    }
  });

  it('a patch some supported run may lack stays patched(): deprecated early it would break that run', () => {
    for (const patch of PATCHES.filter((p) => p.everyRunFrom > OLDEST)) {
      assert.equal(patch.deprecatedIn, undefined, `${patch.id}: runs of revision ${OLDEST} may lack it`);
      assert.ok(
        calls().some((c) => c.id === patch.id && c.how === 'patched'),
        patch.id,
      );
    }
  });

  it('a deprecated patch leaves once no supported run can hold its marker undeprecated', () => {
    for (const patch of PATCHES.filter((p) => p.deprecatedIn !== undefined))
      assert.ok(
        (patch.deprecatedIn ?? 0) > OLDEST,
        `${patch.id}: deprecated in ${patch.deprecatedIn}, and revision ${OLDEST} is the oldest supported: remove its call and row`,
      );
  });

  it('the recordings are of supported revisions only, name the patches they precede and the revision they keep', () => {
    for (const file of histories()) {
      const history = historyFromJSON(JSON.parse(readFileSync(join(HISTORIES, file), 'utf8')));
      const revision = revisionOf(history);
      assert.ok(
        revision >= OLDEST,
        `${file} is a revision-${revision} run; revision ${OLDEST} is the oldest kept`,
      );
      assert.ok(revision <= R.RUNBOOK_REVISION, `${file}: revision ${revision} is newer than this code`);
      const before = /\.before-(.+)\.json$/.exec(file)?.[1];
      if (before)
        assert.ok(
          PATCHES.some((p) => p.id.includes(before)),
          `${file} names no patch`,
        );
      const named = /\.revision-(\d+)\.json$/.exec(file)?.[1];
      if (named) assert.equal(revision, Number(named), `${file} is a run of revision ${revision}`);
    }
  });

  it('the current revision has a recording of its own', () => {
    const revisions = histories().map((file) =>
      revisionOf(historyFromJSON(JSON.parse(readFileSync(join(HISTORIES, file), 'utf8')))),
    );
    assert.ok(revisions.includes(R.RUNBOOK_REVISION), `no recording of revision ${R.RUNBOOK_REVISION}`);
  });

  it('no frozen copy of a retired revision is left', () => {
    assert.ok(!existsSync(join(WORKFLOWS, 'legacy')), 'workflows/legacy/ held revision 1, retired');
    const frozen = sources(WORKFLOWS).filter((file) => /-v\d+\.ts$/.test(file));
    assert.deepEqual(
      frozen.map((file) => relative(ROOT, file)),
      [],
    );
  });

  it('the page that tells the lifecycle names the revisions this code has', () => {
    const page = readFileSync(LIFECYCLE_PAGE, 'utf8');
    const at = page.indexOf('## Versions and their retirement');
    assert.ok(at >= 0, 'docs/production.md has no section "Versions and their retirement"');
    const section = page.slice(at);
    assert.match(section, new RegExp(`\\(\`RUNBOOK_REVISION\` in [^)]*, ${R.RUNBOOK_REVISION} today\\)`));
    assert.match(section, new RegExp(`\`OLDEST_SUPPORTED_REVISION\` \\(${OLDEST} today\\)`));
  });
});
