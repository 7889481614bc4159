// A small reader for the SQL txscan meets in TypeORM code: QueryBuilder condition strings
// (`u.email = :email AND u.age > :min`, `o.id IN (:...ids)`) and simple statements passed to
// manager.query() (SELECT/UPDATE/DELETE/INSERT on one table). Anything beyond that (joins in
// raw SQL, subqueries, functions in conditions) is reported as not understood, which the
// IR expresses as a dynamic predicate: never a guess.

export type Token =
  | { t: "id"; v: string } // identifier or dotted path, quotes removed
  | { t: "kw"; v: string } // upper-cased keyword
  | { t: "param"; v: string; spread: boolean } // :name / :...name
  | { t: "pos"; v: number } // $1 / ? (0-based)
  | { t: "lit"; v: string }
  | { t: "op"; v: string }
  | { t: "(" } | { t: ")" } | { t: "," } | { t: ";" };

const KEYWORDS = new Set([
  "AND", "OR", "NOT", "IN", "IS", "NULL", "BETWEEN", "LIKE", "ILIKE", "TRUE", "FALSE", "SELECT", "FROM", "WHERE",
  "UPDATE", "SET", "DELETE", "INSERT", "INTO", "VALUES", "RETURNING", "ORDER", "GROUP", "BY", "LIMIT", "OFFSET",
  "FOR", "HAVING", "JOIN", "INNER", "LEFT", "RIGHT", "OUTER", "CROSS", "ON", "AS", "ANY", "ALL", "EXISTS", "SIMILAR",
  "TO", "CONFLICT", "DO", "NOTHING", "SHARE", "NOWAIT", "SKIP", "LOCKED", "DISTINCT", "CASE", "WHEN", "THEN", "ELSE",
  "END", "UNION", "WITH", "LATERAL", "USING", "CALL", "ASC", "DESC",
]);

export function tokenize(text: string): Token[] | null {
  const out: Token[] = [];
  let i = 0;
  let positional = 0;
  const n = text.length;
  while (i < n) {
    const c = text[i];
    if (/\s/.test(c)) { i++; continue; }
    if (c === "-" && text[i + 1] === "-") { while (i < n && text[i] !== "\n") i++; continue; }
    if (c === "(") { out.push({ t: "(" }); i++; continue; }
    if (c === ")") { out.push({ t: ")" }); i++; continue; }
    if (c === ",") { out.push({ t: "," }); i++; continue; }
    if (c === ";") { out.push({ t: ";" }); i++; continue; }
    if (c === "'") {
      let j = i + 1;
      let s = "";
      while (j < n) {
        if (text[j] === "'" && text[j + 1] === "'") { s += "'"; j += 2; continue; }
        if (text[j] === "'") break;
        s += text[j++];
      }
      if (j >= n) return null;
      out.push({ t: "lit", v: s });
      i = j + 1;
      continue;
    }
    if (c === ":" && text[i + 1] === ":") { // postgres cast ::type
      i += 2;
      while (i < n && /[\w\[\]]/.test(text[i])) i++;
      continue;
    }
    if (c === ":") {
      const m = /^:(\.\.\.)?([A-Za-z_][\w]*)/.exec(text.slice(i));
      if (!m) return null;
      out.push({ t: "param", v: m[2], spread: !!m[1] });
      i += m[0].length;
      continue;
    }
    if (c === "$" && /\d/.test(text[i + 1] ?? "")) {
      const m = /^\$(\d+)/.exec(text.slice(i))!;
      out.push({ t: "pos", v: Number(m[1]) - 1 });
      i += m[0].length;
      continue;
    }
    if (c === "?") { out.push({ t: "pos", v: positional++ }); i++; continue; }
    if (/\d/.test(c)) {
      const m = /^\d+(\.\d+)?/.exec(text.slice(i))!;
      out.push({ t: "lit", v: m[0] });
      i += m[0].length;
      continue;
    }
    if (/[A-Za-z_"`\[]/.test(c)) {
      // identifier path: a.b, "a"."b", `a`.`b`, [a].[b]
      let j = i;
      const parts: string[] = [];
      while (j < n) {
        const q = text[j];
        if (q === '"' || q === "`" || q === "[") {
          const close = q === "[" ? "]" : q;
          const k = text.indexOf(close, j + 1);
          if (k < 0) return null;
          parts.push(text.slice(j + 1, k));
          j = k + 1;
        } else {
          const m = /^[A-Za-z_][\w$]*/.exec(text.slice(j));
          if (!m) break;
          parts.push(m[0]);
          j += m[0].length;
        }
        if (text[j] === "." && /[A-Za-z_"`\[*]/.test(text[j + 1] ?? "")) {
          if (text[j + 1] === "*") { parts.push("*"); j += 2; break; }
          j++;
          continue;
        }
        break;
      }
      if (parts.length === 0) return null;
      const word = parts.join(".");
      const quoted = /["`\[]/.test(c);
      if (!quoted && parts.length === 1 && KEYWORDS.has(word.toUpperCase())) out.push({ t: "kw", v: word.toUpperCase() });
      else out.push({ t: "id", v: word });
      i = j;
      continue;
    }
    const op = /^(<>|!=|<=|>=|=|<|>|~\*|!~\*|!~|~|\|\||\+|-|\*|\/|%|@>|<@|&&)/.exec(text.slice(i));
    if (op) { out.push({ t: "op", v: op[0] }); i += op[0].length; continue; }
    return null;
  }
  return out;
}

export type Operand =
  | { type: "col"; path: string }
  | { type: "param"; name: string; spread: boolean }
  | { type: "pos"; index: number }
  | { type: "lit"; text: string }
  | { type: "func"; name: string; args: Operand[] }
  | { type: "list"; items: Operand[] }
  | { type: "expr"; parts: Operand[] };

export type Cond =
  | { type: "and" | "or"; args: Cond[] }
  | { type: "not"; arg: Cond }
  | { type: "cmp"; left: Operand; op: string; right: Operand[] }
  | { type: "true" };

class Parser {
  i = 0;
  constructor(public toks: Token[]) {}
  peek(k = 0): Token | undefined { return this.toks[this.i + k]; }
  isKw(v: string, k = 0): boolean { const t = this.peek(k); return !!t && t.t === "kw" && t.v === v; }
  eat(): Token { return this.toks[this.i++]; }
  done(): boolean { return this.i >= this.toks.length; }

  cond(): Cond {
    const args = [this.andCond()];
    while (this.isKw("OR")) { this.eat(); args.push(this.andCond()); }
    return args.length === 1 ? args[0] : { type: "or", args };
  }
  andCond(): Cond {
    const args = [this.notCond()];
    while (this.isKw("AND")) { this.eat(); args.push(this.notCond()); }
    return args.length === 1 ? args[0] : { type: "and", args };
  }
  notCond(): Cond {
    if (this.isKw("NOT")) { this.eat(); return { type: "not", arg: this.notCond() }; }
    if (this.isKw("EXISTS")) throw new Error("subquery");
    const t = this.peek();
    if (t && t.t === "(") {
      // parenthesised condition or a parenthesised operand (a + b) = c
      const save = this.i;
      this.eat();
      try {
        const c = this.cond();
        if (this.peek()?.t === ")") {
          this.eat();
          const nxt = this.peek();
          if (!nxt || nxt.t === ")" || (nxt.t === "kw" && (nxt.v === "AND" || nxt.v === "OR"))) return c;
        }
      } catch { /* fall through to comparison */ }
      this.i = save;
    }
    if (this.isKw("TRUE")) { this.eat(); return { type: "true" }; }
    return this.comparison();
  }
  comparison(): Cond {
    const left = this.operand();
    let negate = false;
    if (this.isKw("IS")) {
      this.eat();
      if (this.isKw("NOT")) { this.eat(); negate = true; }
      if (!this.isKw("NULL")) throw new Error("IS without NULL");
      this.eat();
      const c: Cond = { type: "cmp", left, op: "isnull", right: [] };
      return negate ? { type: "not", arg: c } : c;
    }
    if (this.isKw("NOT")) { this.eat(); negate = true; }
    const t = this.peek();
    let c: Cond;
    if (this.isKw("IN")) {
      this.eat();
      const r = this.operand();
      c = { type: "cmp", left, op: "in", right: [r] };
    } else if (this.isKw("BETWEEN")) {
      this.eat();
      const a = this.operand();
      if (!this.isKw("AND")) throw new Error("BETWEEN without AND");
      this.eat();
      const b = this.operand();
      c = { type: "cmp", left, op: "between", right: [a, b] };
    } else if (this.isKw("LIKE") || this.isKw("ILIKE") || (this.isKw("SIMILAR") && this.isKw("TO", 1))) {
      if (this.isKw("SIMILAR")) this.eat();
      this.eat();
      c = { type: "cmp", left, op: "like", right: [this.operand()] };
    } else if (t && t.t === "op" && ["=", "!=", "<>", "<", ">", "<=", ">=", "~", "~*", "!~", "!~*", "@>", "<@", "&&"].includes(t.v)) {
      this.eat();
      if (this.isKw("ANY") || this.isKw("ALL")) {
        const q = (this.eat() as { v: string }).v;
        const r = this.operand();
        c = { type: "cmp", left, op: t.v === "=" && q === "ANY" ? "in" : "other", right: [r] };
      } else c = { type: "cmp", left, op: t.v, right: [this.operand()] };
    } else throw new Error("no comparison operator");
    return negate ? { type: "not", arg: c } : c;
  }
  operand(): Operand {
    const parts: Operand[] = [this.atom()];
    while (true) {
      const t = this.peek();
      if (t && t.t === "op" && ["+", "-", "*", "/", "%", "||"].includes(t.v)) { this.eat(); parts.push(this.atom()); continue; }
      break;
    }
    return parts.length === 1 ? parts[0] : { type: "expr", parts };
  }
  atom(): Operand {
    const t = this.eat();
    if (!t) throw new Error("unexpected end");
    if (t.t === "param") return { type: "param", name: t.v, spread: t.spread };
    if (t.t === "pos") return { type: "pos", index: t.v };
    if (t.t === "lit") return { type: "lit", text: t.v };
    if (t.t === "kw" && (t.v === "NULL" || t.v === "TRUE" || t.v === "FALSE")) return { type: "lit", text: t.v };
    if (t.t === "op" && t.v === "-") return this.atom();
    if (t.t === "(") {
      if (this.isKw("SELECT")) throw new Error("subquery");
      const items: Operand[] = [this.operand()];
      while (this.peek()?.t === ",") { this.eat(); items.push(this.operand()); }
      if (this.eat()?.t !== ")") throw new Error("unclosed");
      return items.length === 1 && items[0].type !== "param" ? items[0] : { type: "list", items };
    }
    if (t.t === "id") {
      if (this.peek()?.t === "(") {
        this.eat();
        const args: Operand[] = [];
        if (this.peek()?.t !== ")") {
          if (this.isKw("DISTINCT")) this.eat();
          args.push(this.operand());
          while (this.peek()?.t === ",") { this.eat(); args.push(this.operand()); }
        }
        if (this.eat()?.t !== ")") throw new Error("unclosed call");
        return { type: "func", name: t.v.toLowerCase(), args };
      }
      return { type: "col", path: t.v };
    }
    throw new Error("unexpected token");
  }
}

/** Parse a WHERE-style condition; null when it is beyond this reader. */
export function parseCondition(text: string): Cond | null {
  const toks = tokenize(text);
  if (!toks || toks.length === 0) return null;
  const p = new Parser(toks);
  try {
    const c = p.cond();
    return p.done() ? c : null;
  } catch {
    return null;
  }
}

export interface ParsedSql {
  verb: "select" | "update" | "delete" | "insert";
  table: string;
  alias: string | null;
  where: Cond | null; // null: no WHERE clause (every row)
  assignments: { column: string; value: Operand }[];
  forUpdate: boolean;
}

const CLAUSE_END = new Set(["ORDER", "GROUP", "LIMIT", "OFFSET", "FOR", "HAVING", "RETURNING", "UNION"]);

/** Parse a single-table SELECT/UPDATE/DELETE/INSERT; null when it is beyond this reader. */
export function parseSql(text: string): ParsedSql | null {
  const toks = tokenize(text.trim().replace(/;\s*$/, ""));
  if (!toks || toks.length === 0) return null;
  const p = new Parser(toks);
  const tableAlias = (): { table: string; alias: string | null } => {
    const t = p.eat();
    if (!t || t.t !== "id") throw new Error("table");
    let alias: string | null = null;
    if (p.isKw("AS")) p.eat();
    const a = p.peek();
    if (a && a.t === "id") { alias = a.v; p.eat(); }
    return { table: t.v, alias };
  };
  const whereUntilEnd = (): Cond | null => {
    if (!p.isKw("WHERE")) return null;
    p.eat();
    const start = p.i;
    let depth = 0;
    let end = p.toks.length;
    for (let k = start; k < p.toks.length; k++) {
      const t = p.toks[k];
      if (t.t === "(") depth++;
      else if (t.t === ")") depth--;
      else if (depth === 0 && t.t === "kw" && CLAUSE_END.has(t.v)) { end = k; break; }
    }
    const sub = new Parser(p.toks.slice(start, end));
    const c = sub.cond();
    if (!sub.done()) throw new Error("trailing");
    p.i = end;
    return c;
  };
  const rest = (): boolean => {
    // tail clauses we accept: ORDER BY, LIMIT, OFFSET, RETURNING, FOR UPDATE/SHARE
    let forUpdate = false;
    while (!p.done()) {
      const t = p.eat();
      if (t.t === "kw" && t.v === "FOR") forUpdate = true;
      if (t.t === "kw" && (t.v === "SELECT" || t.v === "UNION" || t.v === "JOIN")) throw new Error("complex");
    }
    return forUpdate;
  };
  try {
    if (p.isKw("SELECT")) {
      p.eat();
      let depth = 0;
      while (!p.done()) {
        const t = p.peek()!;
        if (t.t === "(") depth++;
        if (t.t === ")") depth--;
        if (depth === 0 && t.t === "kw" && t.v === "FROM") break;
        if (t.t === "kw" && t.v === "SELECT") throw new Error("subquery");
        p.eat();
      }
      if (!p.isKw("FROM")) return null;
      p.eat();
      const { table, alias } = tableAlias();
      const nxt = p.peek();
      if (nxt && (nxt.t === "," || (nxt.t === "kw" && ["JOIN", "INNER", "LEFT", "RIGHT", "CROSS"].includes(nxt.v)))) return null;
      const where = whereUntilEnd();
      const forUpdate = rest();
      return { verb: "select", table, alias, where, assignments: [], forUpdate };
    }
    if (p.isKw("UPDATE")) {
      p.eat();
      const { table, alias } = tableAlias();
      if (!p.isKw("SET")) return null;
      p.eat();
      const assignments: { column: string; value: Operand }[] = [];
      while (true) {
        const c = p.eat();
        if (!c || c.t !== "id") throw new Error("set column");
        const eq = p.eat();
        if (!eq || eq.t !== "op" || eq.v !== "=") throw new Error("set =");
        assignments.push({ column: c.v.split(".").pop()!, value: p.operand() });
        if (p.peek()?.t === ",") { p.eat(); continue; }
        break;
      }
      const where = whereUntilEnd();
      rest();
      return { verb: "update", table, alias, where, assignments, forUpdate: false };
    }
    if (p.isKw("DELETE")) {
      p.eat();
      if (!p.isKw("FROM")) return null;
      p.eat();
      const { table, alias } = tableAlias();
      const where = whereUntilEnd();
      rest();
      return { verb: "delete", table, alias, where, assignments: [], forUpdate: false };
    }
    if (p.isKw("INSERT")) {
      p.eat();
      if (!p.isKw("INTO")) return null;
      p.eat();
      const t = p.eat();
      if (!t || t.t !== "id") return null;
      const cols: string[] = [];
      if (p.peek()?.t === "(") {
        p.eat();
        while (p.peek() && p.peek()!.t !== ")") {
          const c = p.eat();
          if (c.t === "id") cols.push(c.v);
          else if (c.t !== ",") return null;
        }
        p.eat();
      }
      if (!p.isKw("VALUES")) return null;
      p.eat();
      const row = p.atom();
      const items = row.type === "list" ? row.items : [row];
      const assignments = cols.map((c, k) => ({ column: c, value: items[k] ?? ({ type: "lit", text: "" } as Operand) }));
      return { verb: "insert", table: t.v, alias: null, where: null, assignments, forUpdate: false };
    }
  } catch {
    return null;
  }
  return null;
}
