/**
 * The partition lease tables and their DDL. Idempotent, created with the outbox (`db setup`,
 * `db setup-outbox`): the live members of each scope, and one lease row per partition that
 * anyone ever took (a released lease keeps its row, so its epoch keeps growing).
 */
export const PARTITION_MEMBERS_TABLE = 'protean_partition_members';
export const PARTITION_LEASES_TABLE = 'protean_partition_leases';
export const PARTITION_LEASE_TABLES = [PARTITION_MEMBERS_TABLE, PARTITION_LEASES_TABLE] as const;

export interface PartitionLeaseTableNames {
  members: string;
  leases: string;
}

export function partitionLeaseTableNames(qualify: (table: string) => string): PartitionLeaseTableNames {
  return { members: qualify(PARTITION_MEMBERS_TABLE), leases: qualify(PARTITION_LEASES_TABLE) };
}

export function partitionLeaseDdl(t: PartitionLeaseTableNames): string[] {
  return [
    `CREATE TABLE IF NOT EXISTS ${t.members} (
  scope text NOT NULL,
  member text NOT NULL,
  expires_at timestamptz NOT NULL,
  PRIMARY KEY (scope, member)
)`,
    `CREATE TABLE IF NOT EXISTS ${t.leases} (
  scope text NOT NULL,
  partition integer NOT NULL,
  owner text,
  epoch bigint NOT NULL,
  expires_at timestamptz,
  PRIMARY KEY (scope, partition)
)`,
  ];
}
