// The `new` expressions that put an application class below an application type (hierarchy.ts,
// `linkStructural`: `{ strategy: new DefaultStrategy() }` where a `Strategy` is expected), kept
// per file by the warm cache so that a later scan asks the checker only about those. Deciding
// one `new` types its contextual type, which means resolving the call or typing the object
// literal around it: on vendure's core about 0.3 CPU s for 1,011 `new`s, of which about 60
// link. What decides a `new` is its own file's text and what the rest of the program shows to
// the checker, which is its shapes (the checker never reads a unit, warm-shape.ts, to type
// anything outside it). So while every shape of the project is as it was (the warm cache's
// project digest) a `new` of a file whose content is unchanged links exactly when it did; the
// `new`s of changed files are all asked about again. Metadata blanking (metadata-decorators.ts)
// never removes a `new` (a blanked argument holds none), so positions in an unchanged file
// name the same expressions.
import * as ts from "typescript";
import { relPath } from "./program";

/** Per application file (relative path): the positions of its `new`s that linked, in source
 *  order. A file that is absent is not known: every `new` in it is asked about. */
export type KeptLinks = Record<string, number[]>;

/** Whether `value`, read from a cache file, is a KeptLinks (a file that is not is rebuilt). */
export function isKeptLinks(value: unknown): value is KeptLinks {
  return typeof value === "object" && value !== null && !Array.isArray(value) &&
    Object.values(value).every((positions) => Array.isArray(positions) && positions.every(Number.isInteger));
}

/** Whether a `new` may link: false for one of a file unchanged since `kept` was made that did
 *  not link then. `unchanged(rel)`: the file's content is as then (and every shape too). */
export function keptLinkFilter(rootDir: string, kept: KeptLinks, unchanged: (rel: string) => boolean): (n: ts.NewExpression) => boolean {
  const byFile = new Map<ts.SourceFile, ReadonlySet<number> | null>();
  return (n) => {
    const sf = n.getSourceFile();
    let positions = byFile.get(sf);
    if (positions === undefined) {
      const rel = relPath(rootDir, sf.fileName);
      const list = unchanged(rel) ? kept[rel] : undefined;
      byFile.set(sf, (positions = list ? new Set(list) : null));
    }
    return positions === null || positions.has(n.pos);
  };
}

/** What to keep: for every file analysed, the positions of its `new`s that linked. */
export function linksOf(rootDir: string, files: readonly ts.SourceFile[], linking: readonly ts.NewExpression[]): KeptLinks {
  const out: KeptLinks = {};
  for (const sf of files) out[relPath(rootDir, sf.fileName)] = [];
  for (const n of linking) out[relPath(rootDir, n.getSourceFile().fileName)]?.push(n.pos);
  return out;
}
