"""A small TypeORM project written per test, scanned with the real TypeScript front end (node),
and its rewrites verified by re-analysis of a rewritten copy."""

from __future__ import annotations

from pathlib import Path
from textwrap import dedent

from analyzer.config import Config
from analyzer.rewrite import apply, verified_candidates
from analyzer.scan import scan

ACCOUNT = """\
import { Column, Entity, PrimaryGeneratedColumn } from "typeorm";

@Entity()
export class Account {
  @PrimaryGeneratedColumn()
  id!: number;

  @Column()
  balance!: number;

  @Column()
  points!: number;
}
"""

STAMPED = """\
import { Column, Entity, PrimaryGeneratedColumn, UpdateDateColumn } from "typeorm";

@Entity()
export class Stamped {
  @PrimaryGeneratedColumn()
  id!: number;

  @Column()
  count!: number;

  @UpdateDateColumn()
  updatedAt!: Date;
}
"""


# The imports of a service of entities/ (src/bank.ts).
HEADER = """\
import { DataSource, Repository } from "typeorm";
import { Account } from "./entities/Account";
import { Stamped } from "./entities/Stamped";

"""

# A counter read, added to and saved in a transaction: ts-increment makes it one statement.
DEPOSIT = """\
export class Bank {
  constructor(private dataSource: DataSource) {}

  async deposit(id: number, amount: number): Promise<void> {
    await this.dataSource.transaction(async (em) => {
      const account = await em.findOneByOrFail(Account, { id });
      account.balance += amount;
      // one statement now
      await em.save(account);
    });
  }
}
"""


class Project:
    def __init__(self, root: Path):
        self.root = root

    @property
    def service(self) -> str:
        return (self.root / "src" / "bank.ts").read_text("utf-8")

    def candidates(self):
        result = scan(self.root, Config(), "typeorm", rewrites=False)
        return result, verified_candidates(self.root, result, Config())

    def of_kind(self, kind: str, pattern: str | None = None):
        _result, found = self.candidates()
        return [c for c in found if c.suggestion[0] == kind and c.suggestion[1] == pattern]

    def rewritten(self, kind: str, pattern: str | None = None):
        [candidate] = self.of_kind(kind, pattern)
        assert candidate.rewrite is not None and candidate.rewrite.verified, candidate.refused
        return apply(self.service, candidate.rewrite.edits), candidate


def write(tmp_path: Path, service: str) -> Project:
    root = tmp_path / "bank"
    (root / "src" / "entities").mkdir(parents=True)
    (root / "package.json").write_text('{"name": "bank", "dependencies": {"typeorm": "0.3.20"}}\n')
    (root / "src" / "entities" / "Account.ts").write_text(ACCOUNT)
    (root / "src" / "entities" / "Stamped.ts").write_text(STAMPED)
    (root / "src" / "bank.ts").write_text(dedent(service))
    return Project(root)
