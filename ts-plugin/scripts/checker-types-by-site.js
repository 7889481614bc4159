// Which of ts-plugin's questions make the checker create types, and how many: a preload for
// the front end, run from ts-plugin/ after a build:
//   SITE_FRAMES=2 node -r ./scripts/checker-types-by-site.js dist/cli.js APP > /dev/null
// It writes the program's type count at exit and, per asking site (the checker method, then
// SITE_FRAMES frames of ts-plugin's own stack), the types created while it answered, the most
// first (SITE_TOP lines, 50 unless set). Only outermost questions are counted (a question asked
// inside another is the outer one's), and an answer kept by checker-memo.ts is counted once,
// when it is computed. Type counts do not vary with machine load, unlike the times of a busy
// machine: they show what a change spares the checker, where a profile cannot.
"use strict";
const path = require("path");

const memo = require(path.resolve(__dirname, "..", "dist", "checker-memo.js"));
const QUESTIONS = [
  "getTypeAtLocation", "getResolvedSignature", "getSymbolAtLocation", "getReturnTypeOfSignature", "getAliasedSymbol",
  "getTypeOfSymbolAtLocation", "getTypeOfSymbol", "getSignaturesOfType", "getApparentType", "getAwaitedType",
  "getPropertiesOfType", "getBaseTypes", "getContextualType", "getDeclaredTypeOfSymbol", "getNonNullableType", "getTypeArguments",
];
const frames = Number(process.env.SITE_FRAMES || 2);
const top = Number(process.env.SITE_TOP || 50);
const bySite = new Map();
let checker;
let depth = 0;

/** ts-plugin's frames of the current stack, past this file's and the memo's. */
function site() {
  return new Error().stack.split("\n").slice(3)
    .filter((line) => !/checker-memo|checker-types-by-site|node:internal/.test(line)).slice(0, frames)
    .map((line) => line.trim().replace(/^at /, "").replace(/(\(|^)[^()]*[\\/]dist[\\/]/, "$1")).join(" < ");
}

const memoizedChecker = memo.memoizedChecker;
memo.memoizedChecker = (raw) => {
  checker = raw;
  for (const question of QUESTIONS) {
    const ask = raw[question];
    if (typeof ask !== "function") continue;
    raw[question] = function (...args) {
      if (depth) return ask.apply(raw, args);
      depth++;
      const before = raw.getTypeCount();
      try {
        return ask.apply(raw, args);
      } finally {
        depth--;
        const made = raw.getTypeCount() - before;
        if (made) {
          const key = `${question} @ ${site()}`;
          bySite.set(key, (bySite.get(key) || 0) + made);
        }
      }
    };
  }
  return memoizedChecker(raw);
};

process.on("exit", () => {
  const lines = [`types ${checker ? checker.getTypeCount() : 0}`];
  for (const [key, n] of [...bySite].sort((a, b) => b[1] - a[1]).slice(0, top)) lines.push(`${n}\t${key}`);
  process.stderr.write(lines.join("\n") + "\n");
});
