from django.contrib.auth.forms import UserCreationForm


class SignUpForm(UserCreationForm):
    """Django's own sign-up form: a username and a password checked by the password validators."""
