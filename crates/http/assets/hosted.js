// The hosted form's small enhancement; the pages work without it.
// - A chosen image is previewed under its input.
// - A form is sent once: its button is disabled while it is sent.
// - The summary of errors takes the focus, so a screen reader reads it first.
"use strict";
document.addEventListener("DOMContentLoaded", function () {
  document.querySelectorAll("input[type=file]").forEach(function (input) {
    input.addEventListener("change", function () {
      var preview = input.parentNode.querySelector("img.preview");
      var file = input.files && input.files[0];
      if (!preview || !file || file.type.indexOf("image/") !== 0) {
        return;
      }
      preview.src = URL.createObjectURL(file);
      preview.alt = "Preview of " + file.name;
      preview.hidden = false;
    });
  });
  document.querySelectorAll("form").forEach(function (form) {
    form.addEventListener("submit", function () {
      form.querySelectorAll("button[type=submit]").forEach(function (button) {
        window.setTimeout(function () { button.disabled = true; }, 0);
      });
    });
  });
  var summary = document.getElementById("errors");
  if (summary) {
    summary.focus();
  }
});
