from django import forms


class TransferForm(forms.Form):
    source_id = forms.IntegerField(min_value=1)
    destination_id = forms.IntegerField(min_value=1)
    amount = forms.DecimalField(max_digits=18, decimal_places=2, min_value=0.01)
    memo = forms.CharField(max_length=255, required=False)


class DepositForm(forms.Form):
    amount = forms.DecimalField(max_digits=18, decimal_places=2, min_value=0.01)
