/**
 * A throw-away PostgreSQL database per run (`shop_<random>` on the local server, through the
 * shared `createTemporaryDatabase`), so test files and benchmark rounds never see each other's
 * tables. `drop()` works with connections still open.
 */
import { createTemporaryDatabase, type TemporaryDatabase } from '@protean-ts/conformance/fixtures';

export type TempDatabase = TemporaryDatabase;

export function createTempDatabase(prefix = 'shop'): Promise<TempDatabase> {
  return createTemporaryDatabase({ label: prefix });
}
