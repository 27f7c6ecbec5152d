/**
 * Names for prepared statements. A statement the DAO runs over and over (insert, update, load by
 * id) is parsed and planned once per connection instead of on every call, which matters most for
 * the one-statement insert whose planning costs more than its execution. Names map 1:1 to texts
 * for the life of the process; past a bound, statements simply run unprepared.
 */

const names = new Map<string, string>();
const LIMIT = 2000;

/** The prepared-statement name for this text, or undefined when the bound is reached. */
export function preparedName(text: string): string | undefined {
  let name = names.get(text);
  if (name === undefined && names.size < LIMIT) {
    name = `pt_${names.size + 1}`;
    names.set(text, name);
  }
  return name;
}
