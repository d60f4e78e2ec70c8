import { appendFile, mkdir, readdir, readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';
import type { DockerEngine } from '../../docker/engine';
import { applyPush } from '../../mesh/local/apply';
import { rebuildModuleImages, rollOutOnNode } from '../../mesh/local/build';
import { readJsonIfExists, writeJsonAtomic } from '../../mesh/local/json-files';
import { InboxPush, KEPT_REPORTS, NodeAgentState } from '../../mesh/local/state-schemas';
import { ModuleSpec, type ApplyReport } from '../../mesh/schemas';
import { MeshRefusedError } from '../../mesh/errors';
import type { Routes } from './http-json';
import { MESHCTL_STYLE } from './style';

/** A push as the controller sends it: the agent knows where its own host paths are. */
export const AgentPush = InboxPush.omit({ hostRoot: true });
export type AgentPush = z.infer<typeof AgentPush>;

const BuildRequest = z.strictObject({ spec: ModuleSpec });

export interface HostAgentOptions {
  node: string;
  /** The agent's own files: its state (owned dirs, reports), its inbox and journal. */
  stateDir: string;
  /** Where this host's paths are: the host's disk, as its node worker also sees it. */
  hostRoot: string;
  /** This host's own Docker engine. */
  engine: DockerEngine;
  log(message: string): void;
}

/**
 * The lab's node agent (`mesh-host`), one per host, inside the host's namespace with its engine: it takes
 * pushes from the controller over HTTP, keeps each in its inbox until applied, applies them one at a time
 * in its controller's style (holds on an adopted host, no recreate on a changed mount), and answers for
 * its reports and state. Builds run in the same line, so a roll-out never races an apply.
 */
export class HostAgent {
  private line: Promise<unknown> = Promise.resolve();
  private readonly stateFile: string;
  private readonly inbox: string;

  constructor(private readonly o: HostAgentOptions) {
    this.stateFile = join(o.stateDir, 'state.json');
    this.inbox = join(o.stateDir, 'inbox');
  }

  /** Applies what the inbox still holds from before a restart, oldest first. */
  async start(): Promise<void> {
    await mkdir(this.inbox, { recursive: true });
    if (!(await readJsonIfExists(NodeAgentState, this.stateFile)))
      await writeJsonAtomic(this.stateFile, { version: 1, node: this.o.node, owned: [], reports: [] });
    const waiting: AgentPush[] = [];
    for (const name of (await readdir(this.inbox)).filter((n) => n.endsWith('.json')))
      waiting.push(AgentPush.parse(JSON.parse(await readFile(join(this.inbox, name), 'utf8'))));
    for (const push of waiting.sort((a, b) => a.seq - b.seq)) void this.inLine(() => this.apply(push));
  }

  routes(): Routes {
    return {
      'GET /health': async () => ({ status: 200, body: { node: this.o.node } }),
      'POST /push': async (_, body) => {
        const push = AgentPush.parse(body);
        if (push.node !== this.o.node)
          throw new MeshRefusedError(`this is the agent of ${this.o.node}, not of ${push.node}`);
        await writeJsonAtomic(this.inboxFile(push), push);
        void this.inLine(() => this.apply(push));
        return { status: 202, body: { accepted: push.pushId } };
      },
      'GET /reports/:pushId': async ([pushId]) => {
        const state = await this.state();
        return { status: 200, body: state.reports.find((r) => r.pushId === pushId) ?? null };
      },
      'GET /state': async () => {
        const last = (await this.state()).reports.at(-1) ?? null;
        return {
          status: 200,
          body: { node: this.o.node, hostRoot: this.o.hostRoot, holds: last?.held ?? [], lastApply: last },
        };
      },
      // The lab's tests start each story from nothing: the agent's containers and its memory of them go.
      'POST /reset': async () => ({ status: 200, body: await this.inLine(() => this.reset()) }),
      'POST /build': async (_, body) => {
        const { spec } = BuildRequest.parse(body);
        return { status: 200, body: await this.inLine(() => this.build(spec)) };
      },
    };
  }

  private inLine<T>(work: () => Promise<T>): Promise<T> {
    const next = this.line.then(work);
    this.line = next.catch((error: unknown) => this.o.log(`failed: ${String(error)}`));
    return next;
  }

  private async apply(push: AgentPush): Promise<ApplyReport> {
    const state = await this.state();
    const { report, owned } = await applyPush(
      { ...push, hostRoot: this.o.hostRoot },
      state.owned,
      this.o.engine,
      MESHCTL_STYLE,
    );
    const reports = [...state.reports.filter((r) => r.pushId !== report.pushId), report].slice(-KEPT_REPORTS);
    await writeJsonAtomic(this.stateFile, { ...state, owned, reports });
    await appendFile(
      join(this.o.stateDir, 'journal.log'),
      `${report.finishedAt} ${report.pushId} applied ${report.applied} resource(s)\n`,
    );
    await rm(this.inboxFile(push), { force: true });
    this.o.log(
      `${push.pushId}: applied ${report.applied}, held ${report.held.length}, failed ${report.failed.length}`,
    );
    return report;
  }

  private async build(spec: ModuleSpec) {
    const images = await rebuildModuleImages(this.o.engine, spec);
    const rolled =
      spec.upgradePolicy === 'roll-out'
        ? await rollOutOnNode(
            this.o.engine,
            MESHCTL_STYLE,
            { node: this.o.node, hostRoot: this.o.hostRoot },
            spec,
          )
        : { recreated: [], failed: [] };
    return { node: this.o.node, images, ...rolled };
  }

  private async reset() {
    const removed: string[] = [];
    for (const info of await this.o.engine.listLabelled(MESHCTL_STYLE.labels.module)) {
      await this.o.engine.remove(info.Id);
      removed.push((info.Names[0] ?? info.Id).replace(/^\//, ''));
    }
    await rm(this.inbox, { recursive: true, force: true });
    await mkdir(this.inbox, { recursive: true });
    await writeJsonAtomic(this.stateFile, { version: 1, node: this.o.node, owned: [], reports: [] });
    return { node: this.o.node, removed };
  }

  private async state(): Promise<NodeAgentState> {
    const state = await readJsonIfExists(NodeAgentState, this.stateFile);
    if (!state) throw new Error(`${this.stateFile} is missing`);
    return state;
  }

  private inboxFile(push: AgentPush): string {
    return join(this.inbox, `${String(push.seq).padStart(8, '0')}.json`);
  }
}
