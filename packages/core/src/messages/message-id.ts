/**
 * Message ids: UUIDv7 (RFC 9562), a 48-bit Unix time in milliseconds followed by random bits.
 * Time-ordered ids land at the right edge of every index keyed by them (the outbox's unique
 * (message_id, target_broker) index, an inbox's message table) instead of on a random page each
 * time, so writing them touches a few hot pages rather than the whole index.
 *
 * Within one process ids are strictly increasing: ids minted in the same millisecond carry a
 * 12-bit counter in `rand_a` (RFC 9562 §6.2, method 1), seeded randomly below 2^11 so it has room
 * to count; when it overflows, the timestamp borrows the next millisecond.
 */
import { randomFillSync } from 'node:crypto';

const HEX = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, '0'));
// Entropy is drawn in blocks: one crypto call per 256 ids instead of one per id.
const POOL = new Uint8Array(256 * 10);
let poolAt = POOL.length;
let lastMs = -1;
let counter = 0;

function random(): Uint8Array {
  if (poolAt + 10 > POOL.length) {
    randomFillSync(POOL);
    poolAt = 0;
  }
  const bytes = POOL.subarray(poolAt, poolAt + 10);
  poolAt += 10;
  return bytes;
}

/** A new UUIDv7, greater than every id this process minted before. */
export function newMessageId(now: number = Date.now()): string {
  const rnd = random();
  if (now > lastMs) {
    lastMs = now;
    counter = ((rnd[8]! << 8) | rnd[9]!) & 0x7ff;
  } else if (++counter > 0xfff) {
    lastMs += 1;
    counter = 0;
  }
  const ms = lastMs;
  // 48-bit big-endian time: the high 16 bits and low 32 bits separately (bitwise ops are 32-bit).
  const high = Math.floor(ms / 0x1_0000_0000);
  const low = ms >>> 0;
  return (
    HEX[(high >>> 8) & 0xff]! +
    HEX[high & 0xff]! +
    HEX[low >>> 24]! +
    HEX[(low >>> 16) & 0xff]! +
    '-' +
    HEX[(low >>> 8) & 0xff]! +
    HEX[low & 0xff]! +
    '-' +
    HEX[0x70 | (counter >>> 8)]! +
    HEX[counter & 0xff]! +
    '-' +
    HEX[0x80 | (rnd[0]! & 0x3f)]! +
    HEX[rnd[1]!]! +
    '-' +
    HEX[rnd[2]!]! +
    HEX[rnd[3]!]! +
    HEX[rnd[4]!]! +
    HEX[rnd[5]!]! +
    HEX[rnd[6]!]! +
    HEX[rnd[7]!]!
  );
}
