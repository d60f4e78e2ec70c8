/**
 * The workflow code's revision, which every run says it started on (search attribute MeshRevision, set by
 * its first upsert). Revision 1 was the first release (frozen in workflows/legacy/ until revision 3);
 * revision 2 is every run started before runs said their revision: the "cannot do harm" review and every
 * patch up to FLEET_CONTINUE_AS_NEW; revision 3 adds MeshRevision and retires revision 1; revision 4
 * retires revision 2 (the patches every revision-3 run holds are deprecated, their old branches gone). The
 * lifecycle (docs/production.md, "Versions and their retirement") says when each patch below is deprecated
 * and removed; the test command checks it (test/unit/revision-lifecycle.test.ts).
 */
export const RUNBOOK_REVISION = 4;

/**
 * The oldest revision whose runs this code still replays. A worker refuses to start while a run of an older
 * revision is open on its queue (worker/retired-runs.ts). Raise it once `mesh runbook list --revision` shows
 * no open run of that revision in any namespace you support, and no worker of that revision runs.
 */
export const OLDEST_SUPPORTED_REVISION = 3;

/**
 * A gate whose plan allows `recheck` offers it whatever the verdict says. The offered actions are part of the
 * evidence hash a decision carries, so runbooks recorded before keep their old offers and replay.
 */
export const OFFER_RECHECK = 'gate-offers-recheck';

/**
 * A gate's reminders double their interval after each one, up to `MAX_REMINDER_BACKOFF` times the configured
 * one: a wait of weeks adds a reminder's dozen history events a day, not every half hour until the history
 * limit ends the runbook. Runbooks recorded before remind at the fixed interval and replay.
 */
export const REMINDER_BACKOFF = 'reminder-backoff';
/** With the default half-hour interval: a reminder a day at most, once the wait is older than two days. */
export const MAX_REMINDER_BACKOFF = 48;

/**
 * `act` activities time out after 10 s without a heartbeat instead of 30 s: a worker killed inside one is
 * replaced in about 11 s. Workers beat for every activity while it runs (worker/keep-alive.ts), so a slow
 * Docker call on a live worker is not timed out. Runbooks recorded before schedule with 30 s and replay.
 */
export const QUICK_DEAD_WORKER = 'act-heartbeat-10s';

/**
 * Reads that do not depend on each other go out together: the worker's policy with the node's last run,
 * the edge flip's three preflight looks, and at gate-clean the successor's containers with the
 * predecessor's (once the node's report is in). Runbooks recorded before read them one after the other.
 */
export const PARALLEL_READS = 'parallel-reads';

/**
 * A runbook that fails carries its final status in the failure's details, as a completed one returns it:
 * `mesh runbook status` reads it from the close event instead of asking a worker to replay the whole run.
 * Runbooks recorded before fail with the bare failure (status then asks the query).
 */
export const STATUS_IN_FAILURE = 'status-in-failure';

/**
 * `recreate` no longer creates containers itself: it removes the stale ones on the node and pushes, so the
 * mesh creates them from the current spec its own way (name, labels, restart policy), and judges that push
 * like any other. Runbooks recorded before call the recreate activity (which now does the same through mesh).
 */
export const RECREATE_THROUGH_MESH = 'recreate-through-mesh';

/**
 * When the public names are dark after the predecessor stopped, the rollback lights them first: the
 * successor's containers stopped (a second to stop), the predecessor started and probed, and only then the
 * mesh calls that take the successor off, which can retry for minutes while the controller is down.
 * Runbooks recorded before take the successor off through mesh first.
 */
export const LIGHT_THE_EDGE_FIRST = 'light-the-edge-first';

/**
 * Preflight records which host each node is (its engine's ID and machine id, read by the node's own worker)
 * and refuses when two hosts poll the node's queue; every later node-local activity carries that host, and a
 * worker on another host refuses it. Runbooks recorded before trust whichever worker polls.
 */
export const NODE_HOSTS = 'node-hosts';

/**
 * Before each copy the data-path move checks that B is not the truth already (a baseline of the move with
 * data on B, or the spec mounting B: a Temporal Reset to before the copy after the switch) and waits at
 * `check-target` instead of copying; `remove-copy` asks the node the same before removing B. Runbooks
 * recorded before copy and undo without asking.
 */
export const TARGET_TRUTH = 'target-truth-before-copy';

/**
 * `approve-remove-old-data` offers `remove` only when a dry run of the catch-up finds nothing written on A
 * since the last baseline, and names what it finds. Runbooks recorded before offer it without looking.
 */
export const OLD_DATA_DRY_RUN = 'old-data-dry-run';

/**
 * The catch-up's conflict wait says the module is down and offers `start-on-new`: start it on B as B is,
 * bringing nothing from A. Runbooks recorded before offer recheck, keep-new and abort.
 */
export const START_ON_NEW = 'catch-up-start-on-new';

/**
 * A copy, verify or catch-up that an abort cancels is waited for until it has stopped
 * (WAIT_CANCELLATION_COMPLETED) before any undo step runs: the undo never removes B while the copy still
 * writes into it. Runbooks recorded before undo as soon as the cancellation is asked for.
 */
export const UNDO_AFTER_WORK_STOPS = 'undo-after-cancelled-work-stops';

/**
 * A copy, verify or catch-up whose worker reports that its progress stands still (the `work-stalled`
 * signal) is shown as stalled at its step and reminds the operators. Checked when such a report arrives:
 * a report recorded in a history from before changes nothing on replay.
 */
export const STALLED_WORK = 'stalled-work-shown';

/**
 * A runbook waiting for its locks asks the keeper again every `lockAskAgainMs` (doubling, up to 30 times
 * that): a keeper terminated or lost meanwhile is started again by the waiter itself, or by a holder whose
 * release finds it gone. Runbooks recorded before asked once and waited for the grant.
 */
export const LOCKS_ASKED_AGAIN = 'locks-asked-again';

/**
 * The lock keeper believes the runbooks, not itself: started afresh it asks every open runbook on its queue
 * what it holds and waits for, and it drops a holder only once the holder's own run says it let go (or has
 * ended). Keepers started before keep dropping on any release signal until they end.
 */
export const KEEPER_ASKS_RUNS = 'lock-keeper-asks-runs';

/**
 * A runbook marks every node it touches in flight, durably (workflows/node-mark.ts), before its first side
 * effect, refuses a node marked by another run, and tells the marks when it ends; a mark whose runbook did
 * not end cleanly stays until `mesh runbook clear`. Runbooks recorded before relied on the node's last run.
 */
export const DURABLE_NODE_MARKS = 'durable-node-marks';

/** A clearance also clears the node's durable mark. Clearances recorded before only recorded the clearance. */
export const CLEARANCE_CLEARS_MARK = 'clearance-clears-mark';

/**
 * The restart memory is kept per node and container, not by Docker name alone: a real mesh names a
 * module's containers alike on every node, so a move over two nodes judged each node against the other's
 * first sighting (and lost both). Runbooks recorded before share one memory across their nodes and replay.
 */
export const MEMORY_PER_NODE = 'container-memory-per-node';

/**
 * A removal of the old data refused after the approval (a container began to use A since) also offers keep:
 * the move is done, and keeping A ends it without undoing it. Runbooks recorded before offer retry or abort.
 */
export const KEEP_WHEN_REMOVAL_REFUSED = 'keep-when-removal-refused';

/**
 * A Temporal Reset carries a runbook on: the reset run holds its base run's node marks (it marks a node its
 * base marked and finds the mark its own), and a mark told by a reset run that its runbook ends reads how the
 * reset run ended. Runbooks and marks recorded before knew only the run that marked.
 */
export const MARKS_FOLLOW_RESETS = 'marks-follow-resets';

/**
 * An undo judges only what the runbook changed: its own module's resources and containers on the node;
 * other modules' holds and failures are facts in its note, so an abort finishes on a node where a third
 * module is held. Runbooks recorded before judged an undo's push against the whole node.
 */
export const UNDO_JUDGES_OWN_MODULE = 'undo-judges-own-module';

/**
 * The approval to stop the predecessor watches the successor's containers while it waits (Docker events on
 * the node's worker): when one of them no longer looks as verify-successor judged it, the approval ends
 * undecided, recheck-successor judges the successor again (waiting, with a reminder at once, if it is not
 * ok), and the approval is asked anew on the new evidence. Runbooks recorded before wait blind until a
 * decision and look again only after it.
 */
export const APPROVAL_WATCHES_SUCCESSOR = 'approval-watches-successor';

/**
 * The edge flip counts its successor's restarts from the container's creation (its push created every one
 * of them), not from the runbook's first look: a crash loop that began before gate-apply looked fails
 * verify-successor. Runbooks recorded before count from the first look.
 */
export const SUCCESSOR_RESTARTS_SINCE_CREATED = 'successor-restarts-since-created';

/**
 * A refusal at preflight (the node is not as the runbook needs it; nothing has changed yet) ends the
 * runbook failed, its locks and node marks let go, instead of waiting at preflight with its locks held:
 * `start` refuses the same with exit 2 before anything starts, and a node that changed between the plan and
 * the preflight ends the same way. Runbooks recorded before wait for retry or abort.
 */
export const PREFLIGHT_REFUSAL_ENDS = 'preflight-refusal-ends';

/**
 * A gate that waits over containers watches them while it waits, whatever its verdict (Docker events on the
 * node's worker): when one changes, the wait ends undecided and the gate looks again, so the wait shows the
 * new verdict, facts and evidence (reminding at once); a look found ok waits for a recheck (verdict ok).
 * After four quick looks its watch resumes after a pause that doubles (1 to 30 min): a crash loop cannot
 * fill the history. Runbooks recorded before wait blind until a decision.
 */
export const GATES_WATCH_CONTAINERS = 'gates-watch-containers';

/**
 * While approve-remove-old-data waits, the containers using the old path are watched on every node (any
 * container's creation or removal wakes the watch): a user that comes or goes ends the ask
 * undecided and it is asked anew on the users as they are now, telling the operators at once. After four
 * quick changes the watch pauses (1 to 30 min). Runbooks recorded before ask once and wait for a recheck.
 */
export const OLD_DATA_APPROVAL_WATCHES_USERS = 'old-data-approval-watches-users';

/**
 * A fleet whose history passed half its bound lets its running nodes end, starts no other, and continues as
 * new with where it stands (workflows/fleet/history-bound.ts). Asked only once a run is past that point,
 * so fleets recorded before, which never got there, replay without the marker.
 */
export const FLEET_CONTINUE_AS_NEW = 'fleet-continue-as-new';

/**
 * A fleet's approval older than the policy's `fleetApprovalMaxAge` (default 24 h) no longer stands for a
 * later node: the node asks its own approval, saying why. Asked only when an approval is that old, so
 * nodes recorded before (whose approvals were seconds old) replay without the marker.
 */
export const FLEET_APPROVAL_EXPIRES = 'fleet-approval-expires';

/**
 * A runbook believes nothing in its input it cannot verify (workflows/runbook/trust.ts): fields only the
 * module's fleet gives (fleetApproval, fleet) count only in a child of that fleet, timings stay within the
 * worker's policy, predictions name the plan's gates, and a start the policy wants signed carries its
 * starter's signature; otherwise it ends failed at its first task, having changed nothing. Fleets refuse
 * carried state in a run nobody continued, and node fields only they may set. Runbooks recorded before
 * believed their input.
 */
export const TRUSTED_INPUT = 'trusted-input';

/**
 * A give-up at a failed undo step ends the undo: the undo steps after it do not run (each is marked skipped,
 * saying why), the runbook ends with its rollback failed and its node needs clearing. They counted on the
 * step given up (restart-predecessor stopped the serving successor after reassign-predecessor was given
 * up, and every name went dark). Asked when an undo step fails with others still to run, so runbooks
 * recorded before (which went on with the next undo step after a give-up) replay without the marker.
 */
export const GIVE_UP_ENDS_UNWIND = 'give-up-ends-unwind';

/**
 * The edge flip's restart-predecessor looks before it stops anything: the predecessor's containers that
 * served at preflight must be on the node's engine, able to start. Removed by the clean push, a push brings
 * them back beside the successor first; still gone, the successor is left serving (nothing stopped, nothing
 * taken off through mesh) and the undo step fails saying so. Runbooks recorded before stopped the
 * successor first and started the predecessor after.
 */
export const PREDECESSOR_BEFORE_SUCCESSOR = 'predecessor-before-successor';

/**
 * A waiting approval asked anew because what it rests on changed (the edge flip's successor containers: a
 * `docker pause`, a health blip) backs off as a gate's watch does: after four quick re-asks its watch starts
 * only after a pause that doubles from a minute to half an hour, and the ask says from when. The old-data
 * approval (which paused its watch already) says so too, and reminds at once only when what it offers
 * changed (remove or not), not on every re-ask. Asked only once a re-ask behaves differently (a fifth
 * change, or a re-ask offering what the last one did), so runbooks recorded before replay without it.
 */
export const REASKS_BACK_OFF = 'reasks-back-off';

/**
 * A runbook tells its fleet every change of phase or wait at once only for its first REPORTS_AT_ONCE
 * reports; after that, at once only when it ended, a decision was taken since, or it waits while its fleet
 * last heard it running, and otherwise once a pause has passed that doubles from a minute with each such
 * report (the fleet then hears the newest status). A node whose evidence changes for days adds a few dozen
 * signals to its fleet's history, not one per change. Asked only when a report is held back, so runs
 * recorded before (none past the first reports) replay without it.
 */
export const FLEET_REPORTS_BOUNDED = 'fleet-reports-bounded';

/**
 * probe-public rolls the edge flip back once nothing has taken the public port for `publicBindMs` (3 s)
 * after the predecessor stopped, every connection refused, instead of probing a port nobody will take for
 * the whole `probeDeadlineMs` (30 s): with the default timings the names are dark for under 10 s, not 35 s.
 * Something that answers, even wrongly, is probed until the deadline as before. Runbooks recorded before
 * probe until the deadline.
 */
export const PUBLIC_BIND_WINDOW = 'public-bind-window';

/**
 * An abort waits for a cancelled copy, verify or catch-up to stop at most the policy's cancelledWorkGrace:
 * one hung in the node's file system (a frozen or network mount) never hears its cancellation. Past the
 * grace the undo goes on around it (the module starts on A again, the policy goes back), remove-copy moves
 * to the end of the undo and waits there until the work has ended, and so does any later long work on its
 * node. Runbooks recorded before wait for it without bound (UNDO_AFTER_WORK_STOPS) before any undo step.
 */
export const UNDO_PASSES_HUNG_WORK = 'undo-passes-hung-work';

/**
 * A move fleet started on a module whose spec mounts B already (an earlier move switched it and stopped
 * halfway) moves the nodes still on A: each node's own engine says whether its containers run on B already
 * (named, not moved again) or still on A, and no node may put the spec back on A. Fleets recorded before
 * refused such a module at their preflight.
 */
export const MOVE_FLEET_RESUMES = 'move-fleet-resumes';

/**
 * A fleet's node whose undo reaches after-switch with keep as its only action (other nodes run on B) takes
 * keep itself while the module is down on the node (no container of it runs): the abort no longer leaves it
 * down waiting for a person who could not choose otherwise. Runbooks recorded before ask, and wait.
 */
export const ONLY_ACTION_WHEN_DOWN = 'only-action-when-down';

/**
 * Before approve-remove-old-data offers remove, and right before remove-old-data, the runbook asks whether A
 * is one directory with A on another node of the module (a network file system, or one directory mounted on
 * both): each of its nodes' workers leaves a mark in its A and every other node's worker looks for it. While
 * a node sharing A has a container using it (or cannot be asked), remove is not offered and the removal
 * refuses: a fleet's canary could otherwise delete what a later node still serves. Runbooks recorded before
 * look at their own nodes only.
 */
export const OLD_DATA_SHARED_WAITS = 'old-data-shared-waits';

/**
 * The data move looks whether B is the truth already (check-target) before it stops the module's containers
 * too, not only before the copy: a Temporal Reset to before the stop (the freeze) found B holding the live
 * data only after it had stopped the module that served from B, which then stayed down while it waited.
 * check-target's sentence says whether the module runs meanwhile. Runbooks recorded before stop first.
 */
export const TARGET_TRUTH_BEFORE_STOP = 'target-truth-before-stop';
