import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseBenchOptions } from '../../scripts/bench/options';

describe('bench options', () => {
  it('runs only the dev server without --lab, as before', () => {
    const plain = parseBenchOptions([]);
    assert.deepEqual(plain.contenders, ['executor', 'executor-leftovers', 'executor-dies', 'shell', 'floor']);
    assert.equal(plain.lab, false);
    assert.equal(plain.cli, true);
    assert.deepEqual(parseBenchOptions(['--quick']).contenders, ['executor', 'shell', 'floor']);
  });

  it('times the dark edge in a full run and with --only dark-edge, never in --quick or --lab', () => {
    assert.equal(parseBenchOptions([]).darkEdge, true);
    assert.equal(parseBenchOptions(['--quick']).darkEdge, false);
    assert.equal(parseBenchOptions(['--lab']).darkEdge, false);
    const only = parseBenchOptions(['--only', 'dark-edge']);
    assert.deepEqual([only.darkEdge, only.cli, only.contenders], [true, false, []]);
  });

  it('--lab alternates the executor and the shell flip on the dev server and on the lab, without the CLI', () => {
    const lab = parseBenchOptions(['--lab']);
    assert.deepEqual(lab.contenders, ['executor', 'shell', 'lab-executor', 'lab-shell']);
    assert.equal(lab.lab, true);
    assert.equal(lab.cli, false);
    assert.equal(lab.warmup, true);
    const quick = parseBenchOptions(['--lab', '--quick']);
    assert.deepEqual(quick.contenders, lab.contenders);
    assert.equal(quick.rounds, 3);
    assert.equal(quick.warmup, false);
  });

  it('--only picks lab contenders with --lab, and says to add --lab without it', () => {
    assert.deepEqual(parseBenchOptions(['--lab', '--only', 'lab-executor,cli']).contenders, ['lab-executor']);
    assert.equal(parseBenchOptions(['--lab', '--only', 'lab-executor,cli']).cli, true);
    assert.throws(
      () => parseBenchOptions(['--only', 'executor,lab-shell']),
      /^Error: --only: lab-shell runs on the lab: add --lab$/,
    );
  });

  it('--fleet alone runs only the fleets, with --lab on the lab too; never with --quick; a bad size is one sentence', () => {
    const fleet = parseBenchOptions(['--fleet', '10,100', '--fleet', '1000']);
    assert.deepEqual(fleet.fleet, [10, 100, 1000]);
    assert.deepEqual([fleet.contenders, fleet.cli, fleet.darkEdge], [[], false, false]);
    assert.deepEqual(parseBenchOptions(['--fleet', '4', '--only', 'cli']).cli, true);
    assert.throws(
      () => parseBenchOptions(['--fleet', '4', '--quick']),
      /^Error: --fleet: --fleet is kept out of --quick$/,
    );
    const onLab = parseBenchOptions(['--fleet', '4', '--lab']);
    assert.deepEqual([onLab.fleet, onLab.lab, onLab.contenders, onLab.cli], [[4], true, [], false]);
    assert.equal(parseBenchOptions(['--fleet', '4']).lab, false);
    for (const bad of ['1', 'ten', '2.5', '2001'])
      assert.throws(
        () => parseBenchOptions(['--fleet', bad]),
        /^Error: --fleet: each fleet size is a whole number of nodes from 2 \(a canary and a wave\) to 2000$/,
      );
  });
});
