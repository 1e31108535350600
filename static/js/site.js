/* Small behaviours of every page, kept out of the HTML so that a strict Content Security Policy
   (script-src 'self') works: no inline scripts, no on* attributes. Each one is optional: without
   JavaScript the page still works (the language form has a submit button in <noscript>). */
(function () {
  "use strict";

  // A select marked data-autosubmit sends its form as soon as a choice is made (the language menu).
  function bindAutosubmit() {
    document.querySelectorAll("select[data-autosubmit]").forEach(function (select) {
      select.addEventListener("change", function () {
        if (select.form) select.form.submit();
      });
    });
  }

  // "Play against bots" uses the name typed in the room form next to it, when there is one.
  function bindPlayBotsName() {
    document.querySelectorAll("form[data-name-from]").forEach(function (form) {
      form.addEventListener("submit", function () {
        var source = document.getElementById(form.dataset.nameFrom);
        var target = form.elements.namedItem("name");
        if (source && target && source.value.trim()) target.value = source.value.trim();
      });
    });
  }

  // Menus made of <details>: Escape or a click elsewhere closes them, like any menu.
  function bindMenus() {
    var menus = document.querySelectorAll("details.nav-menu");
    if (!menus.length) return;
    document.addEventListener("click", function (event) {
      menus.forEach(function (menu) {
        if (menu.open && !menu.contains(event.target)) menu.open = false;
      });
    });
    document.addEventListener("keydown", function (event) {
      if (event.key !== "Escape") return;
      menus.forEach(function (menu) {
        if (!menu.open) return;
        var inside = menu.contains(document.activeElement);
        menu.open = false;
        if (inside) menu.querySelector("summary").focus();
      });
    });
  }

  // Phones: the main links fold behind the Menu button; Escape folds them again.
  function bindNavToggle() {
    var toggle = document.querySelector(".nav-toggle");
    var nav = document.getElementById("site-nav");
    if (!toggle || !nav) return;
    var header = toggle.closest(".site-header");
    header.classList.add("has-nav-toggle");
    toggle.hidden = false;
    function setOpen(open) {
      nav.classList.toggle("is-open", open);
      toggle.setAttribute("aria-expanded", open ? "true" : "false");
    }
    toggle.addEventListener("click", function () {
      setOpen(!nav.classList.contains("is-open"));
    });
    document.addEventListener("keydown", function (event) {
      if (event.key === "Escape" && nav.classList.contains("is-open") && nav.contains(document.activeElement)) {
        setOpen(false);
        toggle.focus();
      }
    });
  }

  function init() {
    bindNavToggle();
    bindAutosubmit();
    bindPlayBotsName();
    bindMenus();
  }

  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", init);
  else init();
})();
