"""The published figures of the SIGMOD 2025 study (TAXONOMY.md), which reports are compared with."""

STUDY = {
    "apps_without_interactive": 0.39,
    "interactive_share_in_other_apps": 0.096,
    "strict_share_of_all": 0.005,
    "apps_with_58pct_fully_inferable": 0.90,
    "cda_mismatch_share_of_transactions": 0.27,
}

LABELS = {
    "apps_without_interactive": "applications with no interactive transaction",
    "interactive_share_in_other_apps": "interactive share of transactions, in the other applications",
    "strict_share_of_all": "strictly interactive share of all transactions",
    "apps_with_58pct_fully_inferable": "applications in which at least 58% of transactions are fully inferable",
    "cda_mismatch_share_of_transactions": "transactions with a CDA mismatch",
}

FULLY_INFERABLE_THRESHOLD = 0.58

# The study's corpus (TAXONOMY.md): 111 Django and TypeORM applications, about 33,000 transactions
# (every ORM call site outside an explicit transaction counted as one), about 2,000 interactive.
STUDY_CORPUS = {"applications": 111, "transactions": 33000, "interactive": 2000}
