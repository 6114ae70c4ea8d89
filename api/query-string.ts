/**
 * Query strings as Fastify reads them (a repeated name is a list), with `name[key]=value`
 * gathered into an object under `name`: `?metadata[invoice]=INV-7` is `{ metadata: { invoice:
 * 'INV-7' } }`, as Stripe's and most payment APIs' filters read.
 */
export function parseQueryString(text: string): Record<string, unknown> {
  const parsed: Record<string, unknown> = {};
  const put = (into: Record<string, unknown>, name: string, value: string) => {
    const earlier = into[name];
    if (earlier === undefined) into[name] = value;
    else into[name] = Array.isArray(earlier) ? [...(earlier as string[]), value] : [earlier, value];
  };
  for (const [name, value] of new URLSearchParams(text)) {
    const keyed = /^([A-Za-z]\w*)\[([^\]]+)\]$/.exec(name);
    if (!keyed) {
      put(parsed, name, value);
      continue;
    }
    const [, field, key] = keyed;
    const object = parsed[field!];
    const into =
      typeof object === 'object' && object !== null && !Array.isArray(object)
        ? (object as Record<string, unknown>)
        : (parsed[field!] = {});
    put(into as Record<string, unknown>, key!, value);
  }
  return parsed;
}
