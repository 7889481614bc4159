from django import forms


class ThreadForm(forms.Form):
    title = forms.CharField(max_length=200)
    body = forms.CharField(widget=forms.Textarea)
    tags = forms.CharField(required=False, help_text="comma separated")

    def tag_names(self):
        return [t for t in (s.strip() for s in self.cleaned_data["tags"].split(",")) if t]


class ReplyForm(forms.Form):
    body = forms.CharField(widget=forms.Textarea)
    parent_id = forms.IntegerField(required=False)


class ProfileForm(forms.Form):
    display_name = forms.CharField(max_length=60, required=False)
    bio = forms.CharField(widget=forms.Textarea, required=False)
    avatar = forms.ImageField(required=False)
