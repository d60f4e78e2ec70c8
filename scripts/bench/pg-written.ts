/**
 * What PostgreSQL wrote between two readings: WAL bytes (pg_current_wal_lsn, cluster-wide, exact at once)
 * and, per database, the rows inserted, updated and deleted and the transactions committed
 * (pg_stat_database, which a backend reports at most once a second and an idle one within 10 s: read it
 * a settling pause after the work).
 */

/** Row and transaction counters of one database (pg_stat_database). */
export interface DbCounters {
  inserted: number;
  updated: number;
  deleted: number;
  commits: number;
}

export interface PgReading {
  /** pg_current_wal_lsn() as PostgreSQL prints it. */
  lsn: string;
  databases: Record<string, DbCounters>;
}

export interface PgWritten {
  walBytes: number;
  /** Inserted + updated + deleted in every database read. */
  rows: number;
  commits: number;
  databases: Record<string, DbCounters>;
}

/** The one query a reading is: `psql -A -t -F,` prints a line per database. */
export const PG_READING_SQL = (databases: readonly string[]) =>
  'select pg_current_wal_lsn(), datname, tup_inserted, tup_updated, tup_deleted, xact_commit ' +
  `from pg_stat_database where datname in (${databases.map((d) => `'${d.replace(/'/g, "''")}'`).join(', ')}) ` +
  'order by datname';

/** Temporal's databases on disk together: one number, in bytes. */
export const PG_DATABASE_BYTES_SQL = (databases: readonly string[]) =>
  `select sum(pg_database_size(datname))::bigint from pg_database where datname in (${databases.map((d) => `'${d.replace(/'/g, "''")}'`).join(', ')})`;

/** A pg_lsn (`16/B374D848`: the high and low 32 bits in hex) as a byte position in the WAL. */
export function parseLsn(lsn: string): bigint {
  const match = /^([0-9A-F]{1,8})\/([0-9A-F]{1,8})$/i.exec(lsn.trim());
  if (!match) throw new Error(`not a WAL position (pg_lsn): ${JSON.stringify(lsn)}`);
  return (BigInt(`0x${match[1]}`) << 32n) + BigInt(`0x${match[2]}`);
}

/** WAL bytes written from `before` to `after` (pg_wal_lsn_diff); throws when `after` is earlier. */
export function walBytesBetween(before: string, after: string): number {
  const bytes = parseLsn(after) - parseLsn(before);
  if (bytes < 0n) throw new Error(`the WAL went back from ${before} to ${after}: another cluster?`);
  return Number(bytes);
}

/** A reading from `psql -X -A -t -F, -c PG_READING_SQL(databases)`; every database must be there. */
export function parsePgReading(output: string, databases: readonly string[]): PgReading {
  const lines = output.split('\n').filter((line) => line.trim() !== '');
  const counters: Record<string, DbCounters> = {};
  let lsn: string | undefined;
  for (const line of lines) {
    const [at, name, ...numbers] = line.trim().split(',');
    const values = numbers.map(Number);
    if (!at || !name || values.length !== 4 || values.some((v) => !Number.isInteger(v) || v < 0))
      throw new Error(`not a line of pg_stat_database: ${JSON.stringify(line)}`);
    parseLsn(at);
    lsn ??= at;
    const [inserted = 0, updated = 0, deleted = 0, commits = 0] = values;
    counters[name] = { inserted, updated, deleted, commits };
  }
  const missing = databases.filter((d) => !counters[d]);
  if (!lsn || missing.length > 0) throw new Error(`pg_stat_database has no ${missing.join(', ') || 'lines'}`);
  return { lsn, databases: counters };
}

/** What was written from one reading to the next; a database's counters going back (a stats reset) throws. */
export function pgWritten(before: PgReading, after: PgReading): PgWritten {
  const databases: Record<string, DbCounters> = {};
  for (const [name, then] of Object.entries(before.databases)) {
    const now = after.databases[name];
    if (!now) throw new Error(`the second reading has no ${name}`);
    const delta = {
      inserted: now.inserted - then.inserted,
      updated: now.updated - then.updated,
      deleted: now.deleted - then.deleted,
      commits: now.commits - then.commits,
    };
    if (Object.values(delta).some((v) => v < 0))
      throw new Error(`the statistics of ${name} went back (pg_stat_reset?)`);
    databases[name] = delta;
  }
  const all = Object.values(databases);
  return {
    walBytes: walBytesBetween(before.lsn, after.lsn),
    rows: all.reduce((sum, d) => sum + d.inserted + d.updated + d.deleted, 0),
    commits: all.reduce((sum, d) => sum + d.commits, 0),
    databases,
  };
}
