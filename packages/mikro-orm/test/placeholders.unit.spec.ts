import { describe, expect, it } from 'vitest';
import { toPositional } from '../src/connection/placeholders.js';

describe('toPositional', () => {
  it('numbers ? placeholders in order', () => {
    expect(toPositional('UPDATE t SET a = ?, b = ? WHERE id = ?')).toBe('UPDATE t SET a = $1, b = $2 WHERE id = $3');
  });

  it('leaves ? inside quoted strings, quoted identifiers and comments alone', () => {
    expect(toPositional(`SELECT '?', 'it''s ?', "col?" FROM t WHERE x = ? -- why?\nAND y = ?`)).toBe(
      `SELECT '?', 'it''s ?', "col?" FROM t WHERE x = $1 -- why?\nAND y = $2`,
    );
  });

  it('turns \\? into a literal ? (jsonb operators)', () => {
    expect(toPositional(`SELECT data \\? 'k', data \\?| array['a'] FROM t WHERE id = ?`)).toBe(`SELECT data ? 'k', data ?| array['a'] FROM t WHERE id = $1`);
  });

  it('returns the same text for statements without placeholders', () => {
    expect(toPositional('BEGIN')).toBe('BEGIN');
  });
});
