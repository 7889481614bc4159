-- txscan store, schema version 1 (PRAGMA user_version). Documented in docs/STORE.md.
-- Every row is derived from the scanned code and settings only (no clocks), so the same
-- input gives the same rows; wall times live in `timings` alone.
CREATE TABLE IF NOT EXISTS apps (
    id          INTEGER PRIMARY KEY,
    name        TEXT NOT NULL UNIQUE,
    root        TEXT NOT NULL,
    frontend    TEXT NOT NULL,
    url         TEXT,
    git_commit  TEXT,
    subdir      TEXT,
    tool_version TEXT NOT NULL,
    settings    TEXT NOT NULL,      -- JSON: CDA configuration, excludes, depth
    status      TEXT NOT NULL,      -- ok | failed
    error       TEXT,
    files       INTEGER NOT NULL DEFAULT 0,
    lines       INTEGER NOT NULL DEFAULT 0,
    fingerprint TEXT                -- sha256 over the sorted (path, sha256) of its source files
);
CREATE TABLE IF NOT EXISTS files (
    app_id  INTEGER NOT NULL REFERENCES apps(id) ON DELETE CASCADE,
    path    TEXT NOT NULL,
    lines   INTEGER NOT NULL,
    status  TEXT NOT NULL,
    sha256  TEXT,
    PRIMARY KEY (app_id, path)
);
CREATE TABLE IF NOT EXISTS ir (
    app_id  INTEGER PRIMARY KEY REFERENCES apps(id) ON DELETE CASCADE,
    text    TEXT NOT NULL           -- the canonical IR (JSON lines), to re-run the core without re-scanning
);
CREATE TABLE IF NOT EXISTS entities (
    app_id    INTEGER NOT NULL REFERENCES apps(id) ON DELETE CASCADE,
    name      TEXT NOT NULL,
    qualname  TEXT NOT NULL,
    table_name TEXT,
    file      TEXT NOT NULL,
    line      INTEGER NOT NULL,
    pk        TEXT NOT NULL,        -- JSON list
    unique_sets TEXT NOT NULL,      -- JSON list of lists
    relations TEXT NOT NULL,        -- JSON
    abstract  INTEGER NOT NULL,
    cda_auto  TEXT,                 -- JSON list: the CDA chosen in auto mode
    PRIMARY KEY (app_id, name)
);
CREATE TABLE IF NOT EXISTS transactions (
    id            INTEGER PRIMARY KEY,
    app_id        INTEGER NOT NULL REFERENCES apps(id) ON DELETE CASCADE,
    cda_mode      TEXT NOT NULL,    -- pk | auto
    txn_key       TEXT NOT NULL,    -- <file>:<line>
    file          TEXT NOT NULL,
    line          INTEGER NOT NULL,
    end_line      INTEGER NOT NULL,
    function      TEXT NOT NULL,
    boundary      TEXT NOT NULL,
    wrapper       TEXT,
    interactivity TEXT NOT NULL,
    rw_inferable  TEXT NOT NULL,
    statements    INTEGER NOT NULL,
    read_set      TEXT NOT NULL,    -- JSON list of symbolic rows
    write_set     TEXT NOT NULL,
    excerpt       TEXT,             -- the first lines of the transaction's code
    complete      INTEGER NOT NULL DEFAULT 1,  -- 0: the walk went blind somewhere (docs/VERDICTS.md)
    incomplete    TEXT NOT NULL DEFAULT '[]',  -- JSON list of {file, line, callee, reason}
    UNIQUE (app_id, cda_mode, txn_key)
);
CREATE TABLE IF NOT EXISTS reasons (
    transaction_id INTEGER NOT NULL REFERENCES transactions(id) ON DELETE CASCADE,
    category  TEXT NOT NULL,
    callee    TEXT,
    file      TEXT NOT NULL,
    line      INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS statements (
    transaction_id INTEGER NOT NULL REFERENCES transactions(id) ON DELETE CASCADE,
    step_id   TEXT NOT NULL,
    file      TEXT NOT NULL,
    line      INTEGER NOT NULL,
    entity    TEXT,
    kind      TEXT NOT NULL,
    api       TEXT NOT NULL,
    attributes TEXT NOT NULL,       -- JSON list
    inferability TEXT NOT NULL,
    flags     TEXT NOT NULL,        -- JSON list
    via       TEXT NOT NULL,        -- JSON list (call chain)
    PRIMARY KEY (transaction_id, step_id)
);
CREATE TABLE IF NOT EXISTS suggestions (
    transaction_id INTEGER NOT NULL REFERENCES transactions(id) ON DELETE CASCADE,
    kind      TEXT NOT NULL,
    pattern   TEXT,
    step_id   TEXT,
    file      TEXT NOT NULL,
    line      INTEGER NOT NULL,
    makes_one_shot INTEGER NOT NULL,
    makes_inferable INTEGER NOT NULL,
    explanation TEXT NOT NULL,
    code      TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS diagnostics (
    app_id   INTEGER NOT NULL REFERENCES apps(id) ON DELETE CASCADE,
    file     TEXT NOT NULL,
    line     INTEGER NOT NULL,
    code     TEXT NOT NULL,
    severity TEXT NOT NULL,
    message  TEXT NOT NULL,
    txn_key  TEXT                   -- the transaction it is tied to, if any
);
CREATE TABLE IF NOT EXISTS timings (
    app_id   INTEGER PRIMARY KEY REFERENCES apps(id) ON DELETE CASCADE,
    seconds  REAL NOT NULL
);
-- A digest of each transaction's rows (its own, reasons, statements, suggestions) and their
-- counts: a re-scan writes again only the transactions whose rows changed (store/rows.py).
CREATE TABLE IF NOT EXISTS row_digests (
    transaction_id INTEGER PRIMARY KEY REFERENCES transactions(id) ON DELETE CASCADE,
    digest      TEXT NOT NULL,
    reasons     INTEGER NOT NULL,
    statements  INTEGER NOT NULL,
    suggestions INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS transactions_app ON transactions(app_id, cda_mode);
CREATE INDEX IF NOT EXISTS statements_txn ON statements(transaction_id);
CREATE INDEX IF NOT EXISTS diagnostics_app ON diagnostics(app_id);
-- Replacing an application deletes its transactions, and each deletion cascades to its reasons
-- and suggestions: without these, every one scans both tables whole.
CREATE INDEX IF NOT EXISTS reasons_txn ON reasons(transaction_id);
CREATE INDEX IF NOT EXISTS suggestions_txn ON suggestions(transaction_id);

-- Views for users' own questions (docs/STORE.md).
CREATE VIEW IF NOT EXISTS v_transactions AS
SELECT a.name AS app, t.cda_mode, t.txn_key, t.file, t.line, t.function, t.boundary, t.wrapper,
       t.interactivity, t.rw_inferable, t.statements,
       (SELECT group_concat(DISTINCT r.category) FROM reasons r WHERE r.transaction_id = t.id) AS reasons
FROM transactions t JOIN apps a ON a.id = t.app_id;

CREATE VIEW IF NOT EXISTS v_statements AS
SELECT a.name AS app, t.cda_mode, t.txn_key, s.step_id, s.file, s.line, s.entity, s.kind, s.api,
       s.attributes, s.inferability, s.flags, s.via
FROM statements s JOIN transactions t ON t.id = s.transaction_id JOIN apps a ON a.id = t.app_id;

CREATE VIEW IF NOT EXISTS v_apps AS
SELECT a.name AS app, t.cda_mode, a.frontend, a.files, a.lines,
       count(t.id) AS transactions,
       sum(t.interactivity = 'one-shot') AS one_shot,
       sum(t.interactivity = 'interactive-nonstrict') AS nonstrict,
       sum(t.interactivity = 'interactive-strict') AS strict,
       sum(t.rw_inferable = 'full') AS rw_full,
       sum(t.rw_inferable = 'partial') AS rw_partial,
       sum(t.rw_inferable = 'none') AS rw_none,
       (SELECT count(*) FROM diagnostics d WHERE d.app_id = a.id) AS diagnostics
FROM apps a LEFT JOIN transactions t ON t.app_id = a.id
GROUP BY a.id, t.cda_mode;
