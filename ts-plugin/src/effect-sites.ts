// Where an external effect reached through dynamic dispatch is reported. Which implementation
// of an interface method runs is chosen by configuration (vendure's session cache strategy:
// in memory, SQL or Redis), so the place that decides whether the transaction touches
// something outside the database is the dispatch call in the transaction's own path
// (`await this.strategy.set(...)`), not the library call inside one candidate. Effects found in
// the candidates' arms are moved to the dispatch call; their `via` keeps the way down (the
// `<dispatch NAME: N candidates>` marker, the implementation's functions) and ends with where
// the library call is written. A nested dispatch is moved again by the outer one, so the
// effect ends at the outermost dispatch call of the transaction's path.
import { Step } from "./ir";

export function effectAtMarker(file: string, line: number): string {
  return `<effect at ${file}:${line}>`;
}

/** The steps with every effect (also inside branches and loops) placed at `file:line`. */
export function placeEffectsAt(steps: Step[], file: string, line: number): Step[] {
  return steps.map((s): Step => {
    if (s.node === "effect") {
      if (s.file === file && s.line === line) return s;
      const at = s.via[s.via.length - 1]?.startsWith("<effect at ") ? [] : [effectAtMarker(s.file, s.line)];
      return { ...s, file, line, via: [...s.via, ...at] };
    }
    if (s.node === "branch") return { ...s, arms: s.arms.map((a) => placeEffectsAt(a, file, line)) };
    if (s.node === "loop") return { ...s, body: placeEffectsAt(s.body, file, line) };
    return s;
  });
}
