from django.contrib.auth import login
from django.shortcuts import redirect, render
from django.views.decorators.http import require_http_methods

from accounts.forms import SignUpForm


@require_http_methods(["GET", "POST"])
def signup(request):
    form = SignUpForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        seats = request.session.get("wickwise_seats")  # a guest keeps their seats when signing up
        user = form.save()
        login(request, user)
        if seats:
            request.session["wickwise_seats"] = seats
            from rooms.services import link_remembered_seats

            link_remembered_seats(session=request.session, user=user)
        return redirect("home")
    return render(request, "registration/signup.html", {"form": form})
