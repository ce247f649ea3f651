/** The admin screens' only stylesheet and script, served from here (no assets from elsewhere; see the CSP). */

export const CSS = `
:root { --fg: #1d2530; --muted: #5b6675; --line: #d5dbe3; --bg: #f5f7fa; --accent: #0b5cad; --danger: #a8261c; --ok: #1d6b34; }
* { box-sizing: border-box; }
body { margin: 0; font: 15px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif; color: var(--fg); background: var(--bg); }
header { display: flex; align-items: center; gap: 1.5rem; padding: .6rem 1.5rem; background: #12263f; color: #fff; flex-wrap: wrap; }
header a { color: #dce7f5; text-decoration: none; }
header a:hover, header a[aria-current] { color: #fff; text-decoration: underline; }
header nav { display: flex; gap: 1rem; flex: 1; }
.brand { font-weight: 700; color: #fff; }
.session { display: flex; gap: .6rem; align-items: center; margin: 0; }
.session button { background: transparent; color: #fff; border: 1px solid #8aa3c2; }
header .tenant { font-family: monospace; color: #cfdcec; margin-right: .6rem; }
header .tenant a { color: inherit; }
td.num { text-align: right; }
main { max-width: 1100px; margin: 1.5rem auto; padding: 0 1.5rem; }
h1 { font-size: 1.5rem; margin: 0 0 1rem; }
h2 { font-size: 1.15rem; margin: 1.5rem 0 .6rem; }
table { border-collapse: collapse; width: 100%; background: #fff; border: 1px solid var(--line); }
th, td { text-align: left; padding: .45rem .6rem; border-bottom: 1px solid var(--line); vertical-align: top; }
th { background: #eef2f7; font-weight: 600; }
code, .mono { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; font-size: .9em; word-break: break-all; }
a { color: var(--accent); }
form.inline { display: inline; margin: 0; }
fieldset { border: 1px solid var(--line); background: #fff; margin: 0 0 1rem; padding: .8rem 1rem; }
legend { font-weight: 600; padding: 0 .3rem; }
label { display: block; margin: .4rem 0 .15rem; font-weight: 600; }
label.check { display: flex; gap: .4rem; align-items: baseline; font-weight: 400; }
input[type=text], input[type=password], input[type=url], input[type=search], select, textarea { font: inherit; padding: .35rem .5rem; border: 1px solid #aab4c2; border-radius: 3px; width: 100%; max-width: 40rem; background: #fff; }
textarea { min-height: 8rem; }
button, .button { font: inherit; padding: .35rem .9rem; border-radius: 3px; border: 1px solid var(--accent); background: var(--accent); color: #fff; cursor: pointer; text-decoration: none; display: inline-block; }
button.secondary, .button.secondary { background: #fff; color: var(--accent); }
button.danger { background: var(--danger); border-color: var(--danger); }
button:disabled { opacity: .45; cursor: not-allowed; }
.actions { display: flex; gap: .6rem; flex-wrap: wrap; margin: 1rem 0; align-items: center; }
.notice { background: #e3f3e8; border: 1px solid #9fd0ad; color: var(--ok); padding: .6rem .9rem; }
.errors { background: #fbe9e7; border: 1px solid #e3a59e; color: var(--danger); padding: .2rem .9rem; }
.secret { background: #fff8e1; border: 1px solid #e6c35c; padding: .8rem 1rem; }
.muted { color: var(--muted); }
.pill { display: inline-block; padding: 0 .45rem; border-radius: 9px; font-size: .85em; border: 1px solid var(--line); background: #fff; }
.pill.on { border-color: #9fd0ad; background: #e3f3e8; color: var(--ok); }
.pill.bad { border-color: #e3a59e; background: #fbe9e7; color: var(--danger); }
.pager { display: flex; justify-content: space-between; margin: .8rem 0; }
.row { border: 1px solid var(--line); padding: .6rem .8rem; margin: .6rem 0; background: #fbfcfe; }
.row .grid { display: grid; grid-template-columns: repeat(auto-fit, minmax(14rem, 1fr)); gap: .4rem 1rem; }
.scopes { display: flex; flex-wrap: wrap; gap: .2rem 1rem; }
.scopes[hidden] { display: none; }
.cards { display: grid; grid-template-columns: repeat(auto-fit, minmax(15rem, 1fr)); gap: 1rem; }
.card { background: #fff; border: 1px solid var(--line); padding: 1rem; }
.card h2 { margin-top: 0; }
.login { max-width: 24rem; }
.steps { max-width: 44rem; padding-left: 1.2rem; }
.steps li { margin-bottom: 1rem; }
img.qr { display: block; margin: .5rem 0; background: #fff; }
.recovery-codes { columns: 2; max-width: 22rem; list-style: none; padding: 0; }
.recovery-codes code { font-size: 1.05rem; letter-spacing: .05em; }
.provider { margin: 1rem 0 1.5rem; }
.grid2 { display: grid; grid-template-columns: repeat(auto-fit, minmax(14rem, 20rem)); gap: .4rem 1rem; }
table.facts { width: auto; min-width: 50%; }
table.facts th { width: 12rem; }
`;

/**
 * Progressive help only: every screen works without it. Shows the scope choices of each autorisatie's component,
 * asks before destructive actions, and copies a secret to the clipboard.
 */
export const JS = `
'use strict';
document.addEventListener('DOMContentLoaded', function () {
  document.querySelectorAll('[data-autorisatie]').forEach(function (row) {
    var select = row.querySelector('select[data-component]');
    if (!select) return;
    var show = function () {
      row.querySelectorAll('.scopes[data-for]').forEach(function (group) {
        var mine = group.getAttribute('data-for') === select.value;
        group.hidden = !mine;
        if (!mine) group.querySelectorAll('input[type=checkbox]').forEach(function (c) { c.checked = false; });
      });
    };
    select.addEventListener('change', show);
    show();
  });
  document.querySelectorAll('form[data-confirm]').forEach(function (form) {
    form.addEventListener('submit', function (e) {
      if (!window.confirm(form.getAttribute('data-confirm'))) e.preventDefault();
    });
  });
  document.querySelectorAll('button[data-copy]').forEach(function (button) {
    button.hidden = false;
    button.addEventListener('click', function () {
      var target = document.getElementById(button.getAttribute('data-copy'));
      if (target && navigator.clipboard) navigator.clipboard.writeText(target.textContent || '').then(function () { button.textContent = 'Gekopieerd'; });
    });
  });
});
`;
