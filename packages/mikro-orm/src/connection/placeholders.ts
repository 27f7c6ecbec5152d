/**
 * Turns `?` placeholders (the MikroORM/knex convention the SQL surface promises) into
 * PostgreSQL's `$1, $2, …`. Quoted strings, quoted identifiers and comments are left alone, and
 * `\?` stands for a literal `?`. Results are cached: statements are few and repeat endlessly.
 */

const cache = new Map<string, string>();
const CACHE_LIMIT = 5000;

export function toPositional(sql: string): string {
  const cached = cache.get(sql);
  if (cached !== undefined) return cached;
  const converted = convert(sql);
  if (cache.size >= CACHE_LIMIT) cache.clear();
  cache.set(sql, converted);
  return converted;
}

function convert(sql: string): string {
  let out = '';
  let n = 0;
  let i = 0;
  while (i < sql.length) {
    const ch = sql[i]!;
    if (ch === "'" || ch === '"') {
      const end = closing(sql, i, ch);
      out += sql.slice(i, end);
      i = end;
    } else if (ch === '-' && sql[i + 1] === '-') {
      const end = sql.indexOf('\n', i);
      const stop = end === -1 ? sql.length : end;
      out += sql.slice(i, stop);
      i = stop;
    } else if (ch === '\\' && sql[i + 1] === '?') {
      out += '?';
      i += 2;
    } else if (ch === '?') {
      out += `$${++n}`;
      i += 1;
    } else {
      out += ch;
      i += 1;
    }
  }
  return out;
}

/** Index just past the quote closing the one at `start` (a doubled quote is an escaped one). */
function closing(sql: string, start: number, quote: string): number {
  let i = start + 1;
  while (i < sql.length) {
    if (sql[i] === quote) {
      if (sql[i + 1] === quote) i += 2;
      else return i + 1;
    } else {
      i += 1;
    }
  }
  return sql.length;
}
