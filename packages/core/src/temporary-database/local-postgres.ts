/** The local PostgreSQL server the repository's tests and benchmarks use: trust authentication, user postgres. */
export const LOCAL_POSTGRES = {
  host: '127.0.0.1',
  port: 5432,
  startHint: 'pg_ctlcluster --skip-systemctl-redirect $(ls /etc/postgresql) main start',
} as const;

export const LOCAL_POSTGRES_URI = `postgresql://postgres@${LOCAL_POSTGRES.host}:${LOCAL_POSTGRES.port}`;
