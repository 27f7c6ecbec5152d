/** Name conversions used for defaults (stream categories, table names). */

/** `OrderLine` → `order_line`, `HTTPServer` → `http_server`, `My Shop` → `my_shop`. */
export function snakeCase(name: string): string {
  return name
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1_$2')
    .replace(/([a-z\d])([A-Z])/g, '$1_$2')
    .replace(/[^A-Za-z\d]+/g, '_')
    .replace(/^_+|_+$/g, '')
    .toLowerCase();
}
