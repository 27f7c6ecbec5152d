/** The PostgreSQL partition leases: the store the provider exposes as `provider.partitionLeases`, and its tables. */
export { PostgresPartitionLeases } from './postgres-partition-leases.js';
export {
  partitionLeaseDdl,
  partitionLeaseTableNames,
  PARTITION_LEASE_TABLES,
  PARTITION_MEMBERS_TABLE,
  PARTITION_LEASES_TABLE,
} from './partition-lease-tables.js';
