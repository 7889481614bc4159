from django.urls import path

from ledger import views

app_name = "ledger"

urlpatterns = [
    path("health/", views.healthcheck),
    path("accounts/", views.account_list, name="account-list"),
    path("accounts/search/", views.account_search, name="account-search"),
    path("accounts/<str:number>/", views.account_detail, name="account-detail"),
    path("accounts/<int:account_id>/deposit/", views.teller_deposit, name="teller-deposit"),
    path("accounts/<int:account_id>/freeze/", views.freeze_account_view, name="freeze-account"),
    path("accounts/<int:account_id>/statements/", views.statement_list, name="statements"),
    path("accounts/<int:account_id>/statement/", views.StatementView.as_view(), name="statement"),
    path("transfers/", views.transfer_view, name="transfer"),
    path("journal/search/", views.journal_search, name="journal-search"),
    path("api/accounts/<str:number>/balance/", views.api_balance, name="api-balance"),
]
