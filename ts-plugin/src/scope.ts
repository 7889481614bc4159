// The default scope of a scan: the application's own runtime code. Tests, migrations, seeds
// and build output are skipped unless the user's `exclude` already covers them (the Django
// front end skips tests and migrations the same way), so that surveys count the transactions
// the application runs in production, as the study did. The skipped files are counted and the
// count is reported as one `default-scope` info diagnostic (docs/SCOPE.md).
export type SkipRule = "test" | "migration" | "seed" | "build-output";

/** Folders whose whole content is skipped, by rule. `lib` is build output only when it holds
 *  compiled files (see isCompiledLib). */
const FOLDER_RULES: ReadonlyMap<string, SkipRule> = new Map([
  ["__tests__", "test"], ["__mocks__", "test"], ["test", "test"], ["tests", "test"], ["e2e", "test"], ["__fixtures__", "test"],
  ["migration", "migration"], ["migrations", "migration"],
  ["seed", "seed"], ["seeds", "seed"], ["seeder", "seed"], ["seeders", "seed"],
  ["node_modules", "build-output"], ["dist", "build-output"], ["build", "build-output"], ["out", "build-output"],
  ["coverage", "build-output"], [".next", "build-output"], [".turbo", "build-output"], [".cache", "build-output"],
]);

/** File names skipped by rule. Declaration files (`.d.ts`) are never analysed either (they
 *  hold no code), but they still give the checker its types, so they stay in the program. */
const FILE_RULES: ReadonlyArray<[RegExp, SkipRule]> = [
  [/\.(spec|test|e2e-spec|e2e)\.(ts|tsx|mts|cts)$/, "test"],
  [/\.(seed|seeder)\.(ts|mts|cts)$/, "seed"],
];

/** Folders that are never read at all (their files are not even counted: dependency trees). */
export const UNCOUNTED_FOLDERS: ReadonlySet<string> = new Set(["node_modules", ".git"]);

export function folderRule(name: string): SkipRule | undefined {
  return FOLDER_RULES.get(name);
}

export function fileRule(name: string): SkipRule | undefined {
  for (const [re, rule] of FILE_RULES) if (re.test(name)) return rule;
  return undefined;
}

/** A `lib/` folder holding compiled JavaScript or declarations and no TypeScript source is
 *  build output (a package's published files); a `lib/` of sources is application code. */
export function isCompiledLib(names: ReadonlyArray<string>): boolean {
  const compiled = names.some((n) => /\.(js|cjs|mjs|d\.ts|js\.map)$/.test(n));
  const sources = names.some((n) => /\.(ts|tsx|mts|cts)$/.test(n) && !/\.d\.(ts|mts|cts)$/.test(n));
  return compiled && !sources;
}

/** A TypeORM migration: a class implementing `MigrationInterface` (wherever the file lives). */
export function isMigrationSource(text: string): boolean {
  return /\bimplements\s+(?:[\w$]+\.)?MigrationInterface\b/.test(text);
}

/** Counts of source files skipped by the default rules. */
export class ScopeCounter {
  readonly files: Record<SkipRule, number> = { test: 0, migration: 0, seed: 0, "build-output": 0 };

  add(rule: SkipRule, n = 1): void {
    this.files[rule] += n;
  }

  get total(): number {
    return Object.values(this.files).reduce((a, b) => a + b, 0);
  }

  /** The one-line summary of the `default-scope` diagnostic. */
  message(): string {
    const f = this.files;
    return `${this.total} TypeScript file(s) outside the default scope were skipped: ${f.test} test, ${f.migration} migration, ` +
      `${f.seed} seed, ${f["build-output"]} build output (node_modules not counted); ` +
      `[tool.txscan] exclude adds more`;
  }
}
