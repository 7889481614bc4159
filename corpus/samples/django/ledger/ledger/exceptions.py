class LedgerError(Exception):
    pass


class InsufficientFunds(LedgerError):
    def __init__(self, account_number, amount):
        super().__init__(f"account {account_number} cannot cover {amount}")


class UnbalancedEntry(LedgerError):
    pass
