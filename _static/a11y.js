/* Accessibility repairs for markup we do not write ourselves (theme and docutils).
 *
 * Each repair names the axe-core rule it serves; tests/axe_support.py runs axe
 * on every page of the built book. The repairs change what assistive technology is
 * told, not how the page looks (but for the hover titles of the colour-mode icons),
 * and do nothing on a page without the markup they repair.
 */
(function () {
  "use strict";

  function repair() {
    // axe: label-content-name-mismatch (WCAG 2.5.3, label in name). The theme labels
    // its search buttons aria-label="Search" while they show "Search Ctrl+K": the
    // spoken name must contain the visible words, so let the name come from the
    // visible text, and announce the shortcut the way ARIA defines for it.
    document.querySelectorAll(".search-button__button[aria-label]").forEach(function (button) {
      if (button.textContent.trim()) {
        button.removeAttribute("aria-label");
      }
      if (button.querySelector(".search-button__kbd-shortcut")) {
        button.setAttribute("aria-keyshortcuts", "Control+K Meta+K");
      }
    });

    // axe: label-content-name-mismatch. The colour-mode switch is named "Color mode" by
    // its aria-label, but its three icons carry titles ("Light", "Dark", "System
    // Settings") that Font Awesome turns into <title> text inside each icon, which
    // counts as the button's text. The icons are decorative (the button's tooltip says
    // "Color mode"): drop their titles, whether Font Awesome has replaced the <i> by an
    // <svg> yet or not, and hide them from assistive technology.
    document.querySelectorAll(".theme-switch-button .theme-switch").forEach(function (icon) {
      icon.removeAttribute("title");
      icon.removeAttribute("aria-labelledby");
      icon.querySelectorAll("title").forEach(function (title) {
        title.remove();
      });
      icon.setAttribute("aria-hidden", "true");
    });

    // axe: region (every piece of content inside a landmark). The primary sidebar holds
    // the book's title link and search button outside its "Main" navigation landmark;
    // the whole sidebar is the book's navigation.
    document.querySelectorAll(".bd-sidebar-primary:not([role])").forEach(function (sidebar) {
      sidebar.setAttribute("role", "navigation");
      sidebar.setAttribute("aria-label", "Book");
    });

    // axe: aria-required-children (critical), aria-allowed-role, aria-deprecated-role.
    // Docutils writes the bibliography as <div role="list"> whose entries have the
    // role doc-biblioentry, deprecated since DPUB-ARIA 1.1 and not a list item, so the
    // list has no valid items. Make each entry the list item it is.
    document
      .querySelectorAll('[role="list"] > [role="doc-biblioentry"], [role="list"] > [role="doc-endnote"]')
      .forEach(function (entry) {
        entry.setAttribute("role", "listitem");
      });
  }

  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", repair);
  } else {
    repair();
  }
})();
