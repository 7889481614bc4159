"""HTTP views. DATABASES["default"]["ATOMIC_REQUESTS"] is on: each view runs in one transaction."""
import logging
from datetime import date

from django.contrib import messages
from django.contrib.admin.views.decorators import staff_member_required
from django.contrib.auth.decorators import login_required
from django.contrib.auth.mixins import LoginRequiredMixin
from django.core.exceptions import PermissionDenied
from django.core.mail import send_mail
from django.db.models import Q
from django.http import JsonResponse
from django.shortcuts import get_list_or_404, get_object_or_404, redirect, render
from django.utils.dateparse import parse_date
from django.views import View
from django.views.decorators.http import require_GET, require_POST

from ledger.forms import DepositForm, TransferForm
from ledger.models import Account, JournalEntry, Statement
from ledger.services.accounts import deposit, freeze_account
from ledger.services.statements import generate_statement
from ledger.services.transfers import transfer_funds

logger = logging.getLogger(__name__)

ACCOUNT_FILTERS = {"kind": "kind", "currency": "currency_id", "number": "number__startswith", "frozen": "is_frozen"}


def healthcheck(request):
    return JsonResponse({"status": "ok"})


@login_required
def account_list(request):
    accounts = list(Account.objects.filter(owner=request.user).order_by("number"))
    return render(request, "ledger/account_list.html", {"accounts": accounts})


@login_required
def account_detail(request, number):
    account = get_object_or_404(Account, number=number, owner=request.user)
    today = date.today()
    start = parse_date(request.GET.get("from", "")) or today.replace(day=1)
    end = parse_date(request.GET.get("to", "")) or today
    postings = list(account.postings.filter(entry__posted_at__date__range=(start, end)).order_by("entry__posted_at"))
    last_posting = account.postings.order_by("id").last()
    return render(request, "ledger/account_detail.html", {"account": account, "postings": postings, "last_posting": last_posting})


@login_required
@require_POST
def transfer_view(request):
    form = TransferForm(request.POST)
    if not form.is_valid():
        return render(request, "ledger/transfer.html", {"form": form}, status=400)
    data = form.cleaned_data
    if not Account.objects.filter(pk=data["source_id"], owner=request.user).exists():
        raise PermissionDenied("not your account")
    transfer = transfer_funds(data["source_id"], data["destination_id"], data["amount"], request.user, memo=data["memo"])
    messages.success(request, f"Transfer {transfer.reference} booked.")
    return redirect("ledger:account-list")


@staff_member_required
@require_POST
def teller_deposit(request, account_id):
    form = DepositForm(request.POST)
    if not form.is_valid():
        return render(request, "ledger/deposit.html", {"form": form}, status=400)
    account = deposit(account_id, form.cleaned_data["amount"], actor=request.user)
    if account.statement_email:
        send_mail("Deposit received", f"{form.cleaned_data['amount']} was credited to account {account.number}.", None, [account.statement_email])
    return redirect("ledger:account-detail", number=account.number)


@login_required
def statement_list(request, account_id):
    statements = get_list_or_404(Statement.objects.order_by("-period_start"), account_id=account_id, account__owner=request.user)
    return render(request, "ledger/statements.html", {"statements": statements})


class StatementView(LoginRequiredMixin, View):
    def get(self, request, account_id):
        latest = Statement.objects.filter(account_id=account_id, account__owner=request.user).order_by("-period_start")[0]
        return redirect(latest.download_url())

    def post(self, request, account_id):
        get_object_or_404(Account, pk=account_id, owner=request.user)
        period_start = date.fromisoformat(request.POST["period_start"])
        period_end = date.fromisoformat(request.POST["period_end"])
        statement = generate_statement(account_id, period_start, period_end)
        return JsonResponse({"id": statement.pk, "closing_balance": str(statement.closing_balance)}, status=201)


@login_required
def journal_search(request):
    q = request.GET.get("q", "").strip()
    entries = JournalEntry.objects.filter(Q(memo__icontains=q) | Q(postings__account__number=q), ledger__owner=request.user).exclude(reversal_of__isnull=False)
    results = list(entries.distinct().order_by("-posted_at")[:50])
    return render(request, "ledger/journal_search.html", {"q": q, "entries": results})


@login_required
def account_search(request):
    filters = {ACCOUNT_FILTERS[key]: value for key, value in request.GET.items() if key in ACCOUNT_FILTERS}
    accounts = Account.objects.filter(owner=request.user).filter(**filters).order_by("number")
    return JsonResponse({"results": [{"number": a.number, "balance": str(a.balance)} for a in accounts]})


@staff_member_required
@require_POST
def freeze_account_view(request, account_id):
    freeze_account(account_id, actor=request.user, reason=request.POST.get("reason", ""))
    messages.info(request, "Account frozen.")
    return redirect("ledger:account-list")


@require_GET
@login_required
def api_balance(request, number):
    account = Account.objects.by_number(number)
    if account.owner_id != request.user.pk:
        raise PermissionDenied
    return JsonResponse({"number": account.number, "balance": str(account.balance), "currency": account.currency_id})
