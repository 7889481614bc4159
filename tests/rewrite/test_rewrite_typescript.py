"""TypeORM rewrites: increment/decrement and statements moved onto the transaction's manager,
text edits located with the TypeScript parser and verified by re-analysis."""

from textwrap import dedent

from analyzer.rewrite import typescript_syntax

from typeorm_projects import DEPOSIT, HEADER, write



def test_a_counter_read_modify_write_becomes_increment(tmp_path):
    app = write(tmp_path, HEADER + DEPOSIT)
    after, candidate = app.rewritten("one-shot", "read-modify-write")
    assert after == HEADER + dedent("""\
        export class Bank {
          constructor(private dataSource: DataSource) {}

          async deposit(id: number, amount: number): Promise<void> {
            await this.dataSource.transaction(async (em) => {
              // one statement now
              await em.increment(Account, { id }, "balance", amount);
            });
          }
        }
    """)
    assert candidate.rewrite.kind == "ts-increment" and candidate.makes_one_shot is True
    assert typescript_syntax.parse_errors("src/bank.ts", after) == []


def test_a_subtraction_becomes_decrement(tmp_path):
    app = write(tmp_path, HEADER + dedent("""\
        export async function spend(dataSource: DataSource, id: number, cost: number): Promise<void> {
          await dataSource.transaction(async (manager) => {
            const account = await manager.findOneBy(Account, { id: id });
            account!.points = account!.points - cost;
            await manager.save(account);
          });
        }
    """))
    candidates = app.of_kind("one-shot", "read-modify-write")
    # `account!` is not the plain object name: refused rather than guessed.
    assert candidates and all(c.rewrite is None for c in candidates)


def test_an_entity_with_an_update_date_column_stays_prose(tmp_path):
    app = write(tmp_path, HEADER + dedent("""\
        export async function touch(dataSource: DataSource, id: number): Promise<void> {
          await dataSource.transaction(async (em) => {
            const stamped = await em.findOneByOrFail(Stamped, { id });
            stamped.count += 1;
            await em.save(stamped);
          });
        }
    """))
    [candidate] = app.of_kind("one-shot", "read-modify-write")
    assert candidate.rewrite is None and "@UpdateDateColumn" in candidate.refused


def test_an_injected_repository_moves_onto_the_callbacks_manager(tmp_path):
    app = write(tmp_path, HEADER + dedent("""\
        export class Bank {
          constructor(private dataSource: DataSource, private accounts: Repository<Account>) {}

          async reward(id: number): Promise<void> {
            await this.dataSource.transaction(async (em) => {
              await em.update(Account, { id }, { balance: 0 });
              await this.accounts.increment({ id }, "points", 1);
            });
          }
        }
    """))
    after, candidate = app.rewritten("ts-manager")
    assert '      await em.getRepository(Account).increment({ id }, "points", 1);\n' in after
    assert candidate.rewrite.claim == "increment on line 11 runs inside the transaction"


def test_a_manager_name_rebound_inside_the_callback_is_caught(tmp_path):
    app = write(tmp_path, HEADER + dedent("""\
        export class Bank {
          constructor(private dataSource: DataSource, private accounts: Repository<Account>) {}

          async reward(ids: number[]): Promise<void> {
            await this.dataSource.transaction(async (em) => {
              await em.update(Account, { id: 1 }, { balance: 0 });
              for (const em of ids) {
                await this.accounts.increment({ id: em }, "points", 1);
              }
            });
          }
        }
    """))
    # `em` is a number in the loop: re-analysis of the rewritten copy finds no statement there.
    [candidate] = app.of_kind("ts-manager")
    assert candidate.rewrite is None and candidate.refused.startswith("re-analysis of the rewritten code")


def test_an_insert_computed_from_a_read_is_never_an_increment(tmp_path):
    # The old generator printed increment(Transfer, ...) for an insert.
    app = write(tmp_path, HEADER + dedent("""\
        export async function copy(dataSource: DataSource, id: number): Promise<void> {
          await dataSource.transaction(async (em) => {
            const account = await em.findOneByOrFail(Account, { id });
            await em.insert(Account, { balance: account.balance, points: 0 });
          });
        }
    """))
    candidates = app.of_kind("one-shot", "read-modify-write")
    assert candidates and all(c.rewrite is None and "insert()" in c.refused for c in candidates)


def test_the_typescript_parse_check_rejects_broken_code():
    assert typescript_syntax.parse_errors("x.ts", "await em.increment(Account, { id }, \"points\", 1;\n")
    assert typescript_syntax.parse_errors("x.ts", "const s = \"\U0001F600\"; f(s);\n") == []
