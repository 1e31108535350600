from django import forms
from django.utils.translation import gettext_lazy as _

from rooms.services import NAME_MAX


class NameField(forms.CharField):
    def __init__(self, **kwargs):
        super().__init__(label=_("Your name"), max_length=NAME_MAX, strip=True, **kwargs)


class CreateRoomForm(forms.Form):
    """A room for one game: its seat range and options come from the game's spec."""

    name = NameField()

    def __init__(self, *args, spec, **kwargs):
        super().__init__(*args, **kwargs)
        self.spec = spec
        self.fields["seats"] = forms.TypedChoiceField(
            label=_("Seats"), coerce=int, initial=spec.default_seats,
            choices=[(n, str(n)) for n in range(spec.min_seats, spec.max_seats + 1)],
        )
        for name, option in spec.options.items():
            self.fields[f"option_{name}"] = forms.TypedChoiceField(
                label=option.label, coerce=type(option.default), initial=option.default,
                choices=[(value, str(value)) for value in option.choices],
            )

    def options(self) -> dict:
        return {name: self.cleaned_data[f"option_{name}"] for name in self.spec.options}


class SameDeviceForm(forms.Form):
    """The players who will pass one device around: a name for each, in the order they sit."""

    def __init__(self, *args, spec, **kwargs):
        super().__init__(*args, **kwargs)
        self.spec = spec
        for index in range(spec.max_seats):
            self.fields[f"player_{index + 1}"] = forms.CharField(
                label=_("Player %(n)d") % {"n": index + 1}, max_length=NAME_MAX, strip=True,
                required=index < spec.min_seats,
            )

    def names(self) -> list[str]:
        return [self.cleaned_data[f"player_{n + 1}"] for n in range(self.spec.max_seats)
                if self.cleaned_data.get(f"player_{n + 1}")]


class JoinRoomForm(forms.Form):
    code = forms.CharField(label=_("Room code"), max_length=12, strip=True)
    name = NameField()


class ReturnForm(forms.Form):
    return_code = forms.CharField(label=_("Your personal return code"), max_length=40, strip=True)
