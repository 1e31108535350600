from django.apps import AppConfig
from django.conf import settings
from django.contrib.auth.signals import user_logged_in
from django.utils.translation import gettext_lazy as _


def shorter_session_for_staff(sender, request, user, **kwargs):
    """Players stay signed in for a year; a staff session opens the admin, so it ends within hours."""
    if user.is_staff and hasattr(request, "session"):
        request.session.set_expiry(settings.STAFF_SESSION_SECONDS)


class AccountsConfig(AppConfig):
    name = "accounts"
    verbose_name = _("Accounts")

    def ready(self):
        user_logged_in.connect(shorter_session_for_staff, dispatch_uid="wickwise_staff_session")
