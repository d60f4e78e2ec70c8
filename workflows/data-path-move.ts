import { ApplicationFailure, CancellationScope, deprecatePatch, patched, uuid4 } from '@temporalio/workflow';
import type { PathUser } from '../activities/docker/containers-using-path';
import type { ModuleSpec } from '../mesh/schemas';
import { DATA_PATH_MOVE_KIND } from './data-path-move-kind';
import { DATA_PATH_MOVE } from './data-path-move-plan';
import {
  DataPathMoveInput,
  FAILURE,
  parseInput,
  type DataPathMoveInputArg,
  type RunbookStatus,
} from './contracts';
import { act, longAct, undoAct } from './runbook/activities';
import { failureMessage, isAbort, isFailureOf, refuse } from './runbook/failures';
import { judgePush } from './runbook/judge-push';
import { ContainerMemory } from './runbook/memory';
import { openRunbook } from './runbook/open';
import { recordNodeHosts } from './runbook/hosts';
import {
  KEEP_WHEN_REMOVAL_REFUSED,
  MEMORY_PER_NODE,
  NODE_HOSTS,
  ONLY_ACTION_WHEN_DOWN,
  OLD_DATA_APPROVAL_WATCHES_USERS,
  OLD_DATA_DRY_RUN,
  OLD_DATA_SHARED_WAITS,
  REASKS_BACK_OFF,
  RECREATE_THROUGH_MESH,
  START_ON_NEW,
  TARGET_TRUTH,
  TARGET_TRUTH_BEFORE_STOP,
  UNDO_AFTER_WORK_STOPS,
  UNDO_JUDGES_OWN_MODULE,
  UNDO_PASSES_HUNG_WORK,
} from './runbook/revision';
import { CancelledWork, type LeftRunning } from './runbook/hung-work';
import { clockOf } from './runbook/decisions';
import { formatDuration } from './runbook/step-marks';
import type { Look } from './runbook/runbook';
import { pathUsersChange, pausedWatch, watchedAgainFact } from './runbook/watch';
import { pathUserLook } from './verdict/path-user-look';
import { GATE_APPLY, PREFLIGHT, PUSH } from './runbook/step-declarations';
import type { ReceiptEvidence } from './verdict';

/** The gates a fleet's approval rests on for this node (removing its old data): each one ok at its first look. */
const FIRST_LOOK_GATES = ['check-target', 'verify-copy', 'catch-up', GATE_APPLY] as const;

/** Move a module's data to a new host path; never leave a container silently on the old one. */
export async function dataPathMove(rawInput: DataPathMoveInputArg): Promise<RunbookStatus> {
  const input = parseInput(DataPathMoveInput, rawInput);
  // A cancelled copy, verify or catch-up is waited for until it has stopped (longAct).
  deprecatePatch(UNDO_AFTER_WORK_STOPS);
  const { node, module, from, to, timings, fleet } = input;
  const nodes = input.nodes.length > 0 ? [node, ...input.nodes.filter((n) => n !== node)] : [node];
  const each = <T>(work: (n: string) => Promise<T>) => forEach(nodes, work);
  /** One line for a step's results: as it always read for one node, each node's named for several. */
  const perNode = <T>(all: T[], line: (result: T) => string) =>
    nodes.length === 1 && all[0] !== undefined
      ? line(all[0])
      : all.map((r, i) => `${nodes[i]}: ${line(r)}`).join('; ');
  deprecatePatch(MEMORY_PER_NODE);
  const memory = new ContainerMemory();

  const touches = DATA_PATH_MOVE_KIND.locks(input);
  return openRunbook(DATA_PATH_MOVE, { ...input, touches, raw: rawInput }, async (rb) => {
    // An abort waits for a cancelled copy, verify or catch-up at most the policy's grace, then undoes around it.
    const hung = patched(UNDO_PASSES_HUNG_WORK)
      ? new CancelledWork<LongStep>(rb.cancelledWorkGraceMs(), (left) => leftRunning(left))
      : undefined;
    const { size, onOld, spec } = await rb.step(
      PREFLIGHT,
      () => preflight(input, nodes),
      (p) => p.note,
    );
    const oldPolicy = fleet?.policy ?? spec.upgradePolicy;

    const unfreeze =
      !fleet && rb.undo('unfreeze-policy', () => undoAct.setUpgradePolicy({ module, policy: oldPolicy }));
    if (fleet) rb.skip('freeze-policy', `frozen to manual by ${fleet.fleet} (was ${oldPolicy})`);
    else
      await rb.step(
        'freeze-policy',
        () => act.setUpgradePolicy({ module, policy: 'manual' }),
        () => `was ${oldPolicy}; manual until the move is done`,
      );

    const restartOnOld = rb.undo('restart-on-old-path', async () => {
      await each((n) => undoAct.startContainers({ node: n, module, containers: onOld }));
    });
    // A Reset to before the stop finds B holding the live data here, before it stops what serves from B.
    if (patched(TARGET_TRUTH_BEFORE_STOP)) await checkTarget(false);
    await stopContainers('');

    const removeCopy = rb.undo('remove-copy', async () => {
      const waited = await afterLeftWork(
        'remove-copy',
        `${module} runs on ${from} again; ${to} is removed once nothing writes into it any more`,
      );
      deprecatePatch(TARGET_TRUTH);
      await refuseRemovingTruth();
      await each((n) => undoAct.removeTree({ node: n, path: to, refuseIfUsed: true }));
      return waited && `removed ${to} ${waited}`;
    });
    await copy();
    await rb.gate('verify-copy', verifyCopy, { recopy: copy });
    const baselines = await rb.step(
      'record-baseline',
      () => each((n) => act.recordBaseline({ node: n, from, to })),
      (all) => perNode(all, (b) => `${b.files} entries`),
    );
    const baselineOf = (n: string) => baselines[nodes.indexOf(n)]?.baseline ?? '';

    // Past this point a container may run on B: B is the truth, and the copy is never removed or mirrored.
    removeCopy.forget();
    restartOnOld.forget();
    // Declared before the undo that may push (keep) ahead of the first push below.
    let receipts: ReceiptEvidence[] = [];
    const switchBack = rb.undo('switch-back', () => revertOrKeep(spec));
    await rb.step(
      'switch-spec',
      () => act.moveModuleMounts({ module, from, to }),
      (r) =>
        r.changed.length > 0 || !fleet
          ? `${r.changed.join(', ')} now mount ${to}`
          : `${module}'s spec mounts ${to} already (an earlier node of ${fleet.fleet} switched it)`,
    );

    // In a fleet every node is on its own, its copy verified: its containers are recreated on B before the
    // push, through the operator's own recreate (a catch-up of anything A got since the baseline first).
    if (fleet) await catchUpAndRecreate();
    else receipts = await pushAll();
    await rb.gate(GATE_APPLY, onNewPath, {
      retry: async () => (receipts = await pushAll()),
      recreate: catchUpAndRecreate,
      'accept-restarts': async () => memory.acceptRestarts(),
    });

    if (fleet) rb.skip('restore-policy', `${fleet.fleet} restores it once every node moved`);
    else
      await rb.step(
        'restore-policy',
        () => act.setUpgradePolicy({ module, policy: oldPolicy }),
        () => `back to ${oldPolicy}`,
      );
    if (unfreeze) unfreeze.forget();
    switchBack.forget();

    const fate = await decideOldData();
    const removed = fate === 'remove' && (await removeOldData());
    if (fate !== 'remove') rb.skip('remove-old-data', `${from} kept`);
    return rb.done(`${module} runs on ${to} on ${nodes.join(', ')}; ${from} ${removed ? 'removed' : 'kept'}`);

    /** Whether A is gone: a removal refused after the approval may end with A kept, the move done. */
    async function removeOldData(): Promise<boolean> {
      const remove = async () => {
        const sharing = await oldDataSharing();
        if (sharing.users.length > 0 || sharing.unknown.length > 0) throw refuse(oldDataShared(sharing));
        return each((n) => act.removeTree({ node: n, path: from, refuseIfUsed: true }));
      };
      const note = () => `removed ${from} on ${nodes.join(', ')}`;
      deprecatePatch(KEEP_WHEN_REMOVAL_REFUSED);
      const outcome = await rb.stepOr('remove-old-data', remove, note, {
        action: 'keep',
        says: `keep leaves ${from} in place and ends the move done`,
        skipped: `${from} kept`,
      });
      return 'done' in outcome;
    }

    function stopContainers(why: string) {
      return rb.step(
        'stop-containers',
        () => each((n) => act.stopContainers({ node: n, module, containers: onOld })),
        (all) => `stopped ${all.flatMap((r) => r.stopped).join(', ')}${why}`,
      );
    }

    async function copy() {
      deprecatePatch(TARGET_TRUTH);
      await checkTarget();
      return rb.step(
        'copy',
        () => each(copyOn),
        (all) => perNode(all, (r) => `${r.files} files, ${r.bytes} bytes${r.resumed ? ' (resumed)' : ''}`),
      );
    }

    /** The node's copy; one refused because B holds the live data (a Reset between the check and it) waits as the check does. */
    async function copyOn(n: string) {
      try {
        return await long('copy', n, () => longAct.copyTree({ node: n, from, to }));
      } catch (error) {
        if (isFailureOf(error, FAILURE.targetIsTruth)) {
          deprecatePatch(TARGET_TRUTH);
          await checkTarget();
        }
        throw error;
      }
    }

    /**
     * A runbook reset to before its copy (a Temporal Reset, after the switch) finds B holding the live data:
     * it waits instead of copying A over B. An abort here never removes B (remove-copy is dropped); it
     * starts the containers and restores the policy, which is what the reset run itself may have redone.
     */
    async function checkTarget(copyUndoRegistered = true): Promise<void> {
      let truth = false;
      try {
        await rb.gate(
          'check-target',
          async () => {
            const look = await targetLook();
            truth = !look.ok;
            return look;
          },
          {},
        );
      } catch (error) {
        if (truth && isAbort(error) && copyUndoRegistered) removeCopy.forget();
        throw error;
      }
    }

    async function targetLook(): Promise<Look> {
      const mounted = fleet
        ? (await act.containersUsingPath({ node, path: to })).some((c) => c.module === module)
        : (await act.readModuleSpec({ module })).containers.some((c) =>
            c.mounts.some((m) => m.hostPath === to),
          );
      const truths = await each((n) => act.targetTruth({ node: n, from, to }));
      const facts = [
        ...(mounted
          ? [
              fleet
                ? `a container of ${module} on ${node} mounts ${to}`
                : `the spec of ${module} mounts ${to}`,
            ]
          : []),
        ...truths.flatMap((t, i) =>
          t
            ? [
                `${nodes[i]}: a baseline of this move was recorded${t.recordedAt ? ` at ${t.recordedAt}` : ''} and ${to} holds data`,
              ]
            : [],
        ),
      ];
      if (facts.length === 0) return { ok: true, note: `${to} holds no live data yet` };
      const found = await Promise.all(
        [from, to].map((path) => each((n) => act.containersUsingPath({ node: n, path }))),
      );
      const users = found.map((onPath) =>
        onPath.flatMap((seen, i) =>
          seen.map((c) => `${nodes[i]}: container ${c.name} (${c.state}) mounts ${c.source}`),
        ),
      );
      return {
        ok: false,
        note: `${to} already holds ${module}'s live data`,
        verdict: 'failed',
        reason: `${to} already holds ${module}'s live data (${facts.join('; ')}): this runbook went back to before its copy (a Temporal Reset?), and copying ${from} over ${to} would undo what was written there since, so it does not copy.${patched(TARGET_TRUTH_BEFORE_STOP) ? ` ${servingWhileWaiting(found.flat(2))}` : ''} abort ends the runbook without touching ${to}: it starts ${module}'s containers as they are and puts its policy back to ${oldPolicy}, as any abort before the copy does, but never removes ${to}; look at ${module} on ${nodes.join(', ')} and finish the move by hand.`,
        actions: ['abort'],
        facts: [...facts, ...users.flat()],
      };
    }

    /** Whether the module serves while check-target waits: said in its sentence, never left to guess. */
    function servingWhileWaiting(users: PathUser[]): string {
      const running = [
        ...new Set(users.filter((c) => c.module === module && c.state === 'running').map((c) => c.name)),
      ];
      return running.length > 0
        ? `${module} keeps running meanwhile (${running.join(', ')}).`
        : `${module} is down meanwhile (none of its containers runs); abort starts them again as they are.`;
    }

    /** Before remove-copy: B that became the truth (a Reset after the switch) is never removed. */
    async function refuseRemovingTruth(): Promise<void> {
      const truths = await each((n) => undoAct.targetTruth({ node: n, from, to }));
      const holding = nodes.filter((_, i) => truths[i]);
      if (holding.length > 0)
        throw refuse(
          `${to} on ${holding.join(', ')} already holds ${module}'s live data (a baseline of this move was recorded and ${to} holds data): it is not removed`,
        );
    }

    async function verifyCopy(): Promise<Look> {
      const results = await each((n) =>
        long('verify-copy', n, () => longAct.verifyTree({ node: n, from, to })),
      );
      const counted = perNode(results, (v) => `${v.files} files, ${v.bytes} bytes`);
      const differing = results.flatMap((v, i) =>
        v.differences.map(
          (d) => `${nodes.length > 1 ? `${nodes[i]}: ` : ''}${d.path} (${d.what.join(', ')})`,
        ),
      );
      if (differing.length === 0)
        return { ok: true, note: nodes.length > 1 ? counted : counted.replace(/^[^:]+: /, '') };
      return {
        ok: false,
        note: `${differing.length} paths differ`,
        verdict: 'failed',
        reason: `The copy of ${from} at ${to} differs in ${differing.length} path(s): ${differing.slice(0, 5).join(', ')}; recopy copies again and verifies, abort restarts ${module} on ${from}.`,
        actions: ['recopy', 'abort'],
        facts: [`${counted} checked`, ...differing.slice(0, 20).map((path) => `differs: ${path}`)],
      };
    }

    function pushAll(): Promise<ReceiptEvidence[]> {
      return rb.step(
        PUSH,
        () => each((n) => act.pushNode({ node: n })),
        (all) =>
          all
            .map(
              (r, i) =>
                `${nodes[i]}: ${r.readable ? `sent ${r.value.sent} as ${r.value.pushId}` : `unreadable: ${r.error}`}`,
            )
            .join('; '),
      );
    }

    async function onNewPath(): Promise<Look> {
      const looks = await each((n) =>
        judgePush(
          { node: n, module, oldHostPaths: [from] },
          receipts[nodes.indexOf(n)] as ReceiptEvidence,
          timings,
          {
            memory,
          },
        ),
      );
      return firstProblem(looks, nodes);
    }

    /**
     * The push restarted the stopped containers as they were, on A, so they may have written there: stop
     * them, bring B only what changed on A (never overwriting what B gained), then recreate them on B.
     */
    async function catchUpAndRecreate(): Promise<void> {
      await stopContainers(' to catch up the copy');
      let asItIs = false;
      await rb.gate('catch-up', () => (asItIs ? startedAsItIs() : catchUp(false)), {
        'keep-new': () => catchUp(true),
        'start-on-new': async () => void (asItIs = true),
      });
      deprecatePatch(RECREATE_THROUGH_MESH);
      await rb.step(
        'recreate',
        () => each((n) => act.removeStaleContainers({ node: n, module, containers: onOld })),
        (all) =>
          `removed ${all.flatMap((r) => r.removed).join(', ') || 'nothing'}; the push has mesh create them on ${to}`,
      );
      receipts = await pushAll();
    }

    async function catchUp(keepNewOnConflict: boolean): Promise<Look> {
      const results = await each((n) =>
        long('catch-up', n, () =>
          longAct.catchUpCopy({ node: n, from, to, baseline: baselineOf(n), keepNewOnConflict }),
        ),
      );
      const conflicts = results.flatMap((r, i) => r.conflicts.map((path) => `${nodes[i]}: ${path}`));
      const brought = results.flatMap((r, i) => [
        ...r.copied.map((path) => `${nodes[i]}: copied ${path}`),
        ...r.removed.map((path) => `${nodes[i]}: removed ${path}`),
        ...r.kept.map((path) => `${nodes[i]}: kept B's ${path}`),
      ]);
      const note = `${brought.length} change(s) from ${from} brought to ${to}`;
      if (conflicts.length === 0) return { ok: true, note };
      const changed = `${conflicts.length} path(s) changed both on ${from} and on ${to} since the copy (${conflicts.slice(0, 5).join(', ')}); nothing was copied.`;
      const facts = [...conflicts.map((c) => `changed on both sides: ${c}`), ...brought.slice(0, 20)];
      const bothSides = `${conflicts.length} path(s) changed on both sides`;
      deprecatePatch(START_ON_NEW);
      return {
        ok: false,
        note: `${bothSides}; ${module} is down`,
        verdict: 'failed',
        reason: `${changed} ${module} is down (stopped for the catch-up) while this waits. Resolve them by hand and recheck; keep-new brings the rest and keeps ${to}'s version of these; start-on-new starts ${module} on ${to} as ${to} is, bringing nothing from ${from} (${from} keeps its changes, and is not offered for removal while it holds them); abort stops here.`,
        actions: ['recheck', 'keep-new', 'start-on-new', 'abort'],
        facts: [`${module} is down: its containers were stopped for the catch-up`, ...facts],
      };
    }

    /**
     * start-on-new brings nothing, not even A's changes that do not conflict: half of what the application
     * wrote together on A (an index without its data) would leave B in a state neither side ever had. The
     * baseline stays where it was, so every change on A stays visible, and A is not offered for removal.
     */
    function startedAsItIs(): Promise<Look> {
      return Promise.resolve({
        ok: true,
        note: `nothing brought from ${from}: ${module} starts on ${to} as it is; the changes on ${from} stay there`,
      });
    }

    /**
     * The old data goes only with an approval, and only while no container of any module uses it. While the
     * approval waits, the path's users are watched on every node (OLD_DATA_APPROVAL_WATCHES_USERS): a user
     * that comes or goes ends the ask undecided, and it is asked anew on what is true now.
     */
    async function decideOldData(): Promise<'remove' | 'keep'> {
      deprecatePatch(OLD_DATA_APPROVAL_WATCHES_USERS);
      let expired = '';
      let offeredBefore: string | undefined;
      for (let changes = 0, looks = 0, changed: string | undefined; ; looks++) {
        const found = await each((n) => act.containersUsingPath({ node: n, path: from }));
        const users = found.flatMap((seen, i) =>
          seen.map((c) => `${nodes[i]}: container ${c.name} (${c.state}) mounts ${c.source}`),
        );
        const inUse = users.length > 0;
        deprecatePatch(OLD_DATA_DRY_RUN);
        const news = await writtenOnOldPath();
        const unsure = news.changed.length > 0 || news.unknown.length > 0;
        const sharing = await oldDataSharing();
        const shared = sharing.users.length > 0 || sharing.unknown.length > 0;
        // Only at the first look: once a person was asked here, the node's own answer is what counts.
        if (input.fleetApproval && looks === 0 && !inUse && !unsure && !shared) {
          const byFleet = rb.approvedByFleet(
            'approve-remove-old-data',
            input.fleetApproval,
            FIRST_LOOK_GATES,
            'remove',
          );
          if (byFleet === true) return 'remove';
          if (byFleet) expired = `${byFleet.expired} `;
        }
        const reason = (
          inUse
            ? `${module} runs on ${to}, but ${users.length} container(s) still use ${from} (${users.slice(0, 3).join(', ')}); keep leaves ${from} in place, recheck looks again once they are gone.`
            : shared
              ? oldDataShared(sharing)
              : unsure
                ? oldDataUnsure(news)
                : `${module} runs on ${to} with its data verified (${size.files} files, ${size.bytes} bytes); remove deletes ${from} on ${nodes.join(', ')}${sharing.sharers.length > 0 ? ` (the same directory as ${from} on ${sharing.sharers.join(', ')}, where nothing uses it any more)` : ''}, keep leaves it in place.`
        ).replace(/^/, expired);
        const ask = {
          offer: inUse || unsure || shared ? (['keep', 'recheck'] as const) : (['remove', 'keep'] as const),
          facts: [
            ...(changed !== undefined ? [`changed while the approval waited: ${changed}`] : []),
            ...users.map((u) => `in use: ${u}`),
            ...sharing.sharers.map(
              (n) => `${from} is the same directory on ${n}: it saw the mark left in it`,
            ),
            ...sharing.users.map((u) => `in use where it is shared: ${u}`),
            ...sharing.unknown.map((u) => `cannot tell whether ${from} is shared: ${u}`),
            ...news.changed.map((c) => `written on ${from} since the last baseline: ${c}`),
            ...news.unknown.map((u) => `cannot tell what changed on ${from}: ${u}`),
          ],
        };
        const judged = Object.fromEntries(nodes.map((n, i) => [n, (found[i] ?? []).map(pathUserLook)]));
        const usersChange = pausedWatch(changes, () => pathUsersChange(from, judged));
        // Asked anew, it tells the operators at once only when what it offers changed (REASKS_BACK_OFF).
        const offered = ask.offer.join(' ');
        const tellAtOnce = changed !== undefined && (offered !== offeredBefore || !patched(REASKS_BACK_OFF));
        offeredBefore = offered;
        const answer = await rb.approveWatching('approve-remove-old-data', reason, usersChange, {
          ...ask,
          facts: [...ask.facts, ...watchedAgainFact(changes)],
          remindAtOnce: tellAtOnce,
        });
        if ('changed' in answer) {
          changed = answer.changed;
          changes += 1;
          continue;
        }
        changed = undefined;
        if (answer.action !== 'recheck') return answer.action;
      }
    }

    /**
     * Whether A is one directory with A on another node of the module (a network file system, or one
     * directory mounted on both), from the nodes' own disks: each node of this runbook leaves a mark in its
     * A, and every other node's worker looks for it in its own (OLD_DATA_SHARED_WAITS). The containers
     * using A there are what removing it would take from them; a node that cannot be asked leaves it unknown.
     */
    async function oldDataSharing(): Promise<Sharing> {
      const sharing: Sharing = { sharers: [], users: [], unknown: [] };
      if (!patched(OLD_DATA_SHARED_WAITS)) return sharing;
      const others = (await act.moduleNodes({ module })).filter((n) => !nodes.includes(n));
      if (others.length === 0) return sharing;
      const marks = nodes.map((n) => ({ node: n, path: from, token: uuid4() }));
      try {
        const left = await forEach(marks, (mark) => act.markPath(mark));
        for (const other of others) {
          try {
            let seen = false;
            for (const [i, mark] of marks.entries())
              if (left[i] && (await act.pathHasMark({ ...mark, node: other }))) seen = true;
            if (!seen) continue;
            sharing.sharers.push(other);
            const users = await act.containersUsingPath({ node: other, path: from });
            sharing.users.push(
              ...users.map((c) => `${other}: container ${c.name} (${c.state}) mounts ${c.source}`),
            );
          } catch (error) {
            if (isAbort(error)) throw error;
            sharing.unknown.push(`${other} did not answer: ${failureMessage(error)}`);
          }
        }
      } catch (error) {
        if (isAbort(error)) throw error;
        sharing.unknown.push(`no mark could be left in ${from}: ${failureMessage(error)}`);
      } finally {
        await CancellationScope.nonCancellable(() =>
          forEach(marks, (mark) => act.unmarkPath(mark).catch(() => undefined)),
        );
      }
      return sharing;
    }

    function oldDataShared({ sharers, users, unknown }: Sharing): string {
      if (users.length === 0)
        return `${module} runs on ${to}, but whether ${from} is the same directory on another node of ${module} cannot be told (${unknown[0]}), so remove is not offered: keep leaves ${from} in place, recheck looks again.`;
      return `${module} runs on ${to}, but ${from} is the same directory on ${sharers.join(', ')} (a mark left in it here was seen there: a network file system, or one directory mounted on both), where ${users.length} container(s) still use it (${users.slice(0, 3).join(', ')}): removing it would delete their data, so remove is not offered until every node sharing it has moved. keep leaves ${from} in place (the last of them to move may remove it), recheck looks again.`;
    }

    /** A catch-up's dry run on each node: what removing A would lose (written there since the last baseline). */
    async function writtenOnOldPath(): Promise<{ changed: string[]; unknown: string[] }> {
      const found = await each((n) => act.oldPathChanges({ node: n, from, to, baseline: baselineOf(n) }));
      return {
        changed: found.flatMap((f, i) => ('changed' in f ? f.changed.map((c) => `${nodes[i]}: ${c}`) : [])),
        unknown: found.flatMap((f, i) => ('unknown' in f ? [`${nodes[i]}: ${f.unknown}`] : [])),
      };
    }

    function oldDataUnsure(news: { changed: string[]; unknown: string[] }): string {
      if (news.changed.length === 0)
        return `${module} runs on ${to}, but whether ${from} was written to since the last baseline cannot be told (${news.unknown[0]}), so remove is not offered: keep leaves ${from} in place, recheck looks again.`;
      const shown = `${news.changed.slice(0, 3).join(', ')}${news.changed.length > 3 ? ', ...' : ''}`;
      return `${module} runs on ${to}, but ${from} was written to since the last baseline (${shown}): removing it would lose those writes, so remove is not offered. keep leaves ${from} in place (bring what matters to ${to} and remove ${from} by hand once nothing there is needed), recheck looks again.`;
    }

    /** After the switch, B may hold new writes: going back to A is the operator's call, never automatic. */
    async function revertOrKeep(original: ModuleSpec): Promise<string | undefined> {
      await startWhileLeftWorkRuns();
      const choice =
        fleet && !fleet.revertible
          ? ((await keepWhileDown(fleet.fleet)) ??
            (await rb.approve(
              'after-switch',
              `The runbook stopped after ${module}'s spec moved to ${to}; other nodes of ${fleet.fleet} run on ${to}, so the spec stays there (revert would put them back on ${from} without what they wrote). keep leaves ${module} on ${to} on ${node}, brings over only what changed on ${from} and recreates there any container still on ${from}.`,
              { offer: ['keep'] },
            )))
          : await rb.approve(
              'after-switch',
              `The runbook stopped after ${module}'s spec moved to ${to}, which may hold new writes; revert puts the spec and its containers back on ${from} (what was written on ${to} stays there, not on ${from}), keep leaves ${module} on ${to}, brings over only what changed on ${from} and recreates there any container still on ${from}.`,
            );
      // The spec says B; a container the push left on A would be moved by the next build once the
      // roll-out policy is restored (incident 2). Keep makes the containers match the spec now.
      if (choice === 'keep') {
        await afterLeftWork(
          'switch-back',
          `${module} runs as it was meanwhile; keep then catches up and recreates it on ${to}`,
        );
        await catchUpAndRecreate();
        deprecatePatch(RECREATE_THROUGH_MESH);
        return onlyWhenOn(to, receipts);
      }
      await undoAct.restoreModuleSpec({ spec: { ...original, upgradePolicy: 'manual' } });
      deprecatePatch(RECREATE_THROUGH_MESH);
      await each((n) => undoAct.removeStaleContainers({ node: n, module, containers: onOld }));
      return onlyWhenOn(from, await each((n) => undoAct.pushNode({ node: n })));
    }

    /**
     * keep, when it is the only action (other nodes of the fleet run on B) and the module is down on this
     * node: nobody could choose otherwise, and a wait for a person would only keep it down
     * (ONLY_ACTION_WHEN_DOWN). Undefined (a person is asked) while any of its containers runs.
     */
    async function keepWhileDown(fleetId: string): Promise<'keep' | undefined> {
      if (!patched(ONLY_ACTION_WHEN_DOWN)) return undefined;
      if ((await undoAct.runningModuleContainers({ node, module })).length > 0) return undefined;
      return rb.takeOnlyAction(
        'after-switch',
        'keep',
        `it is the only action (other nodes of ${fleetId} run on ${to}, so the spec stays there) and ${module} was down on ${node}: it catches up and recreates ${module} on ${to}`,
      );
    }

    /**
     * Long work on a node: an abort waits for it at most the policy's grace (UNDO_PASSES_HUNG_WORK), and it
     * never starts beside work an abort left running on that node (both would write into B).
     */
    async function long<T>(step: LongStep, n: string, work: () => Promise<T>): Promise<T> {
      if (!hung) return work();
      const before = hung.stillRunning([n]);
      if (before.length > 0) rb.tell(step, `waits until ${leftLine(before)} has stopped before it starts`);
      return hung.run(step, n, work);
    }

    /** An abort's undo goes on without long work that did not stop: said at its step; remove-copy waits at the end. */
    function leftRunning(left: LeftRunning<LongStep>): void {
      const removal = left.what !== 'catch-up';
      rb.tell(
        left.what,
        `cancelled at ${clockOf(left.cancelledAt)}, but its work on ${left.node} did not stop within ${formatDuration(rb.cancelledWorkGraceMs())} (a call hung in the node's file system: a frozen or network mount?); the undo goes on without it${removal ? `, and remove-copy waits at its end until it has stopped` : ''}`,
      );
      if (removal) removeCopy.runLast();
    }

    /** Waits, saying so at `step`, until the long work an abort left running here has stopped; then how long it took. */
    async function afterLeftWork(
      step: 'remove-copy' | 'switch-back',
      meanwhile: string,
    ): Promise<string | undefined> {
      const left = hung?.stillRunning(nodes) ?? [];
      if (left.length === 0) return undefined;
      rb.tell(step, `waits until ${leftLine(left)} has stopped: ${meanwhile}`);
      await hung?.endedOn(nodes);
      return `once ${leftLine(left)} had stopped`;
    }

    /**
     * A catch-up an abort left running (its containers stopped for it, still on A): they start again as they
     * are, so the module serves while the undo waits for it to stop.
     */
    async function startWhileLeftWorkRuns(): Promise<void> {
      if ((hung?.stillRunning(nodes) ?? []).length === 0) return;
      await each((n) => undoAct.startContainers({ node: n, module, containers: onOld }));
    }

    /**
     * An undo's push judged like any other, for its own module only (UNDO_JUDGES_OWN_MODULE): it throws
     * (the undo waits) unless the containers run on `path`; it resolves to what it left alone, if anything.
     */
    async function onlyWhenOn(path: string, pushed: ReceiptEvidence[]): Promise<string | undefined> {
      const away = path === to ? from : to;
      deprecatePatch(UNDO_JUDGES_OWN_MODULE);
      const looks = await each((n) =>
        judgePush(
          { node: n, module, oldHostPaths: [away] },
          pushed[nodes.indexOf(n)] as ReceiptEvidence,
          timings,
          { memory, judgedModules: [module] },
        ),
      );
      const look = firstProblem(looks, nodes);
      if (!look.ok) throw ApplicationFailure.nonRetryable(look.reason);
      const aside = looks.flatMap((l, i) =>
        l.ok ? (l.elsewhere ?? []).map((text) => (nodes.length > 1 ? `${nodes[i]}: ${text}` : text)) : [],
      );
      return aside.length > 0 ? `left alone, not this runbook's: ${aside.join('; ')}` : undefined;
    }
  });
}

/** A's sharing with the module's other nodes: who sees it as theirs, who uses it there, who could not tell. */
interface Sharing {
  sharers: string[];
  users: string[];
  unknown: string[];
}

/** The steps whose work is long (copy, verify, catch-up): an abort may leave it running (hung-work.ts). */
type LongStep = 'copy' | 'verify-copy' | 'catch-up';

/** `the cancelled copy on forge1 (cancelled at 12:03:10 UTC)`, for each. */
function leftLine(left: readonly LeftRunning[]): string {
  return left
    .map((l) => `the cancelled ${l.what} on ${l.node} (cancelled at ${clockOf(l.cancelledAt)})`)
    .join(', ');
}

/** Runs `work` for each node (or each node's item) in turn; the results in their order. */
async function forEach<N, T>(nodes: readonly N[], work: (node: N) => Promise<T>): Promise<T[]> {
  const results: T[] = [];
  for (const n of nodes) results.push(await work(n));
  return results;
}

/** All nodes ok: ok. Otherwise the first node's problem, its note and facts naming the node. */
function firstProblem(looks: Look[], nodes: string[]): Look {
  const single = nodes.length === 1;
  const named = (i: number, text: string) => (single ? text : `${nodes[i]}: ${text}`);
  const failing = looks.findIndex((l) => !l.ok);
  if (failing < 0) return { ok: true, note: looks.map((l, i) => named(i, l.note)).join('; ') };
  const look = looks[failing] as Extract<Look, { ok: false }>;
  return { ...look, note: named(failing, look.note), facts: look.facts.map((f) => named(failing, f)) };
}

async function preflight(input: DataPathMoveInput, nodes: string[]) {
  const { module, from, to } = input;
  deprecatePatch(NODE_HOSTS);
  const hosts = `; ${await recordNodeHosts(nodes)}`;
  const sizes = await forEach(nodes, (n) => act.preflightMove({ node: n, from, to }));
  const assigned = await act.moduleNodes({ module });
  // A fleet checked that it names every node; the spec may mount B already (an earlier node switched it).
  const unnamed = input.fleet ? [] : assigned.filter((n) => !nodes.includes(n));
  if (unnamed.length > 0)
    throw refuse(
      `${module} is assigned to ${assigned.join(', ')}; its spec and policy are the same on every node, so a move changes them all: name them all (--nodes ${assigned.join(',')}) and the runbook moves each node's data`,
    );
  const notAssigned = nodes.filter((n) => !assigned.includes(n));
  if (notAssigned.length > 0) throw refuse(`${module} is not assigned to ${notAssigned.join(', ')}`);
  const spec = await act.readModuleSpec({ module });
  const mountingFrom = await act.containersMounting({ node: input.node, module, path: from });
  const onOld =
    mountingFrom.length === 0 && input.fleet
      ? await act.containersMounting({ node: input.node, module, path: to })
      : mountingFrom;
  if (onOld.length === 0) throw refuse(`no container of ${module} mounts ${from}`);
  const expected = [...input.containers].sort();
  if (expected.length > 0 && expected.join() !== [...onOld].sort().join())
    throw refuse(
      `the containers mounting ${from} are ${onOld.join(', ')}, not the expected ${expected.join(', ')}`,
    );
  const users = await forEach(nodes, (n) => act.containersUsingPath({ node: n, path: from }));
  const others = users.flatMap((found, i) =>
    found
      .filter((c) => !(c.module === module && c.node === nodes[i]))
      .map(
        (c) =>
          `${c.name} on ${nodes[i]} (${c.module ? `module ${c.module}` : 'no module'}) mounts ${c.source}`,
      ),
  );
  if (others.length > 0) throw refuse(`${from} is used by more than ${module}: ${others.join(', ')}`);
  const size = sizes.reduce((sum, s) => ({ files: sum.files + s.files, bytes: sum.bytes + s.bytes }), {
    files: 0,
    bytes: 0,
  });
  return {
    size,
    onOld,
    spec,
    note: `${size.files} files, ${size.bytes} bytes on ${nodes.join(', ')}; ${onOld.join(', ')} mount ${from}${hosts}`,
  };
}
