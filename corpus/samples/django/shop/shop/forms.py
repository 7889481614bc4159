from django import forms


class AddressForm(forms.Form):
    label = forms.CharField(max_length=40)
    line1 = forms.CharField(max_length=200)
    city = forms.CharField(max_length=80)
    postcode = forms.CharField(max_length=12)
    country = forms.CharField(max_length=2)
    make_default = forms.BooleanField(required=False)


class CheckoutForm(forms.Form):
    shipping_address_id = forms.IntegerField()
    coupon_code = forms.CharField(max_length=24, required=False)
