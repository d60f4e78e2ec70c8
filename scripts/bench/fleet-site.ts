import { setTimeout as sleep } from 'node:timers/promises';
import type { Client } from '@temporalio/client';
import type { BenchEnv } from './bench-env';
import { PG_SETTLE_MS, type LabSide } from './lab-side';
import { pgWritten, type PgWritten } from './pg-written';
import type { Meters } from './resources';

/** Which Temporal a fleet ran on: the bench's own dev server (SQLite in a file) or the lab's (PostgreSQL). */
export type FleetServer = 'dev server' | 'lab';

/** What the fleet's Temporal wrote to its database from the start to the close. */
export interface FleetDatabase {
  /** `SQLite file`: the dev server's file with its WAL; `PostgreSQL`: pg_database_size of Temporal's databases. */
  measured: 'SQLite file' | 'PostgreSQL';
  beforeBytes: number;
  afterBytes: number;
  /** The lab: the WAL, rows and commits PostgreSQL wrote (pg-written.ts), read PG_SETTLE_MS after the close. */
  postgres?: PgWritten;
}

/** Where a fleet runs: its Temporal, what is metered there, and how its database is read. */
export interface FleetSite {
  server: FleetServer;
  address: string;
  namespace: string;
  client: Client;
  /** The processes of Temporal's server (and PostgreSQL's) whose CPU time the fleet costs. */
  meters(): Pick<Meters, 'temporal' | 'postgres'>;
  /** Reads the database now; the function it gives reads it again and says what was written between. */
  databaseWindow(): Promise<() => Promise<FleetDatabase | undefined>>;
}

/** The bench's own dev server: its SQLite file (and journal) before the start and after the close. */
export function devServerSite(env: BenchEnv): FleetSite {
  return {
    server: 'dev server',
    address: env.address,
    namespace: env.temporal.namespace ?? 'default',
    client: env.client,
    meters: () => ({ temporal: env.meters().temporal }),
    async databaseWindow() {
      const beforeBytes = await env.databaseBytes();
      return async () => {
        const afterBytes = await env.databaseBytes();
        return beforeBytes !== undefined && afterBytes !== undefined
          ? { measured: 'SQLite file', beforeBytes, afterBytes }
          : undefined;
      };
    },
  };
}

/**
 * The lab's Temporal Server (scripts/lab/up.sh), its four services and PostgreSQL metered; the database read
 * PG_SETTLE_MS after the close, so the closed runbooks' visibility records and the row counts are in.
 */
export function labSite(side: LabSide): FleetSite {
  return {
    server: 'lab',
    address: side.lab.temporal.address,
    namespace: side.lab.temporal.namespace,
    client: side.client,
    meters: () => {
      const { temporal, postgres } = side.processes();
      return { temporal, postgres };
    },
    async databaseWindow() {
      const [beforeBytes, before] = await Promise.all([side.databaseBytes(), side.readPg()]);
      return async () => {
        await sleep(PG_SETTLE_MS);
        const [afterBytes, after] = await Promise.all([side.databaseBytes(), side.readPg()]);
        return { measured: 'PostgreSQL', beforeBytes, afterBytes, postgres: pgWritten(before, after) };
      };
    },
  };
}
