// Module customization hooks (node:module register) that plant bugs in the JavaScript port as
// it is loaded. A module of the port imported as `…/examples/js/wire.mjs?bugs=a,b` is loaded
// with the patches of bugs a and b (bugs.mjs), and passes the same query on to the port's
// modules it imports, so one import plants the bugs in the whole port.

import { planted, PORT_DIR } from "./bugs.mjs";

const inPort = (url) => url.startsWith(PORT_DIR.href);

export async function resolve(specifier, context, nextResolve) {
  const resolved = await nextResolve(specifier, context);
  const parent = context.parentURL === undefined ? null : new URL(context.parentURL);
  if (parent !== null && parent.searchParams.has("bugs") && inPort(resolved.url)) {
    const url = new URL(resolved.url);
    if (url.search === "") {
      url.search = parent.search;
      return { ...resolved, url: url.href };
    }
  }
  return resolved;
}

export async function load(url, context, nextLoad) {
  const loaded = await nextLoad(url, context);
  const parsed = new URL(url);
  if (!inPort(url) || !parsed.searchParams.has("bugs")) return loaded;
  const names = parsed.searchParams.get("bugs").split(",").filter((name) => name !== "");
  const file = decodeURIComponent(parsed.pathname.slice(PORT_DIR.pathname.length));
  const source = typeof loaded.source === "string" ? loaded.source : new TextDecoder().decode(loaded.source);
  return { ...loaded, source: planted(file, source, names) };
}
