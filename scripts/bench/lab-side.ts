import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { Client, Connection } from '@temporalio/client';
import { z } from 'zod';
import { BASE_IMAGE } from '../../docker/engine';
import { MESHCTL_LABELS } from '../../lab/mesh/style';
import { Lab } from '../../test/support/lab';
import { CADDY, PUBLIC_NAMES, PUBLIC_PORT, ROUTE_PROXY, STAGING_PORT } from '../../test/support/lab-stories';
import { TASK_QUEUE, type EdgeFlipInputArg } from '../../workflows/contracts';
import type { FlipSite } from './executor';
import { parsePgReading, PG_DATABASE_BYTES_SQL, PG_READING_SQL, type PgReading } from './pg-written';
import type { Meters } from './resources';

const run = promisify(execFile);

/** The parts of lab.json (scripts/lab/up.sh) the bench reads beyond test/support/lab.ts: what it meters. */
const LabMeters = z.object({
  temporal: z.object({ services: z.array(z.object({ name: z.string(), pidFile: z.string() })) }),
  postgres: z.object({
    socketDir: z.string(),
    port: z.number(),
    databases: z.array(z.string()).min(1),
    superuser: z.string(),
    bin: z.string(),
    data: z.string(),
  }),
});
type LabMeters = z.infer<typeof LabMeters>;

/** The lab's host the bench flips on: the novox of the incident. */
export const LAB_NODE = 'novox';

/**
 * PostgreSQL reports a backend's row counts at most once a second, and an idle backend's within 10 s
 * (PGSTAT_IDLE_INTERVAL); Temporal writes a closed runbook's visibility record after the close. A reading of
 * the rows a runbook wrote is taken this long after it closed.
 */
export const PG_SETTLE_MS = 11_000;

function pidIn(file: string): number {
  const pid = Number(readFileSync(file, 'utf8').split('\n')[0]?.trim());
  if (!Number.isInteger(pid) || pid <= 0) throw new Error(`${file} holds no pid`);
  return pid;
}

/**
 * The production-shaped lab's side of `bench --lab`: the lab that is up (scripts/lab/up.sh), taken for this
 * process alone through Lab.story (the lock the lab tests and the chaos suite take), its Temporal client, the
 * processes whose CPU time is read (the runbook worker, the node's own worker, Temporal's four services,
 * PostgreSQL) and PostgreSQL's counters, read as its superuser over the socket dir.
 */
export class LabSide {
  private taken = false;

  private constructor(
    readonly lab: Lab,
    private readonly meters: LabMeters,
    readonly client: Client,
    private readonly connection: Connection,
    private readonly log: (line: string) => void,
  ) {}

  static async open(log: (line: string) => void): Promise<LabSide> {
    const lab = Lab.open();
    const meters = LabMeters.parse(JSON.parse(readFileSync(join(lab.dir, 'lab.json'), 'utf8')));
    const { client, connection } = await lab.client();
    try {
      await client.workflowService.getSystemInfo({});
      if (!(await lab.engine(LAB_NODE).inspectImage(BASE_IMAGE)))
        throw new Error(`${LAB_NODE}'s engine has no ${BASE_IMAGE}: run scripts/lab/up.sh`);
    } catch (error) {
      await connection.close();
      throw new Error(`the lab does not answer (${String(error)}): run scripts/lab/up.sh`);
    }
    const side = new LabSide(lab, meters, client, connection, log);
    side.processes(); // every pidfile there before the first round
    log(`the lab: Temporal ${lab.temporal.address} (namespace ${lab.temporal.namespace}), host ${LAB_NODE}`);
    return side;
  }

  /** The lab reset for one story, this process alone on it; says so when it waits for another's story. */
  async story(): Promise<Lab> {
    if (!this.taken) {
      const said = setTimeout(
        () => this.log('waiting for the lab (another process runs a story on it)'),
        2_000,
      );
      try {
        await Lab.story();
      } finally {
        clearTimeout(said);
      }
      this.taken = true;
      return this.lab;
    }
    await this.lab.reset();
    return this.lab;
  }

  get node() {
    return this.lab.host(LAB_NODE);
  }

  /** Where the lab's executor flips: the lab's Temporal and runbook worker, novox's own engine. */
  site(): FlipSite {
    return {
      client: this.client,
      taskQueue: TASK_QUEUE,
      engine: this.lab.engine(LAB_NODE),
      successorLabels: (input) => ({ [MESHCTL_LABELS.module]: input.module }),
      roleLabel: MESHCTL_LABELS.container,
      meters: () => this.processes(),
    };
  }

  /** The processes whose CPU time a lab flip costs, by name (pidfiles of scripts/lab/up.sh), read afresh. */
  processes(): Meters & { postgres: number } {
    const run = (name: string) => join(this.lab.dir, 'run', `${name}.pid`);
    return {
      workers: {
        'runbook worker': pidIn(run('runbook-worker')),
        [`node worker ${LAB_NODE}`]: pidIn(run(`node-worker-${LAB_NODE}`)),
      },
      temporal: Object.fromEntries(this.meters.temporal.services.map((s) => [s.name, pidIn(s.pidFile)])),
      postgres: pidIn(join(this.meters.postgres.data, 'postmaster.pid')),
    };
  }

  /** PostgreSQL's WAL position and the rows and commits of Temporal's databases, now. */
  async readPg(): Promise<PgReading> {
    return parsePgReading(
      await this.psql(PG_READING_SQL(this.meters.postgres.databases)),
      this.meters.postgres.databases,
    );
  }

  /** Temporal's databases on disk (pg_database_size, summed), in bytes. */
  async databaseBytes(): Promise<number> {
    const out = await this.psql(PG_DATABASE_BYTES_SQL(this.meters.postgres.databases));
    const bytes = Number(out.trim());
    if (!Number.isInteger(bytes) || bytes <= 0)
      throw new Error(`not a database size: ${JSON.stringify(out)}`);
    return bytes;
  }

  /** One query as PostgreSQL's superuser over the socket dir: unaligned rows, fields split by commas. */
  private async psql(sql: string): Promise<string> {
    const pg = this.meters.postgres;
    const { stdout } = await run('runuser', [
      '-u',
      pg.superuser,
      '--',
      join(pg.bin, 'psql'),
      ...['-X', '-A', '-t', '-F,', '-h', pg.socketDir, '-p', String(pg.port), '-d', 'postgres'],
      ...['-c', sql],
    ]);
    return stdout;
  }

  /** The edge flip's input on the lab's host, as `edgeFlipArgs` gives the CLI (no timings: the defaults). */
  edgeFlipInput(): EdgeFlipInputArg {
    const ip = this.node.ip;
    return {
      node: LAB_NODE,
      module: ROUTE_PROXY.module,
      predecessor: CADDY.module,
      publicNames: PUBLIC_NAMES,
      publicAddress: `http://${ip}:${PUBLIC_PORT}`,
      successorAddress: `http://${ip}:${STAGING_PORT}`,
      successorMarker: `served by route-proxy on ${LAB_NODE}`,
      startedBy: 'bench',
    };
  }

  /** The lab left as a story finds it (nothing of the bench's on the hosts); the client closed. */
  async close(): Promise<void> {
    try {
      if (this.taken) await this.lab.reset();
    } finally {
      await this.connection.close();
    }
  }
}
